import BatonGLib
import CGLib
import XCTest

/// ``BusValue`` → GVariant → ``BusValue``, and each GVariant compared with the one GLib
/// parses from the same value in its text format.
final class BusValueRoundTripTests: XCTestCase {
    /// The object manager's `GetManagedObjects` answer: objects, their interfaces, their properties.
    static let managedObjects = BusValue.dict(keyType: "o", valueType: "a{sa{sv}}", [
        .objectPath("/org/example/App/window/1"): .dict(keyType: "s", valueType: "a{sv}", [
            .string("org.gtk.Actions"): .dictionary(["enabled": .bool(true), "title": .string("Draft")]),
            .string("org.freedesktop.DBus.Properties"): .dictionary([:]),
        ]),
        .objectPath("/org/example/App/window/2"): .dict(keyType: "s", valueType: "a{sv}", [:]),
    ])

    /// Each value beside the GVariant text GLib makes for it.
    static let cases: [(BusValue, String)] = [
        (.string("héllo"), "'héllo'"),
        (.bool(true), "true"),
        (.byte(200), "byte 0xc8"),
        (.int16(-7), "int16 -7"),
        (.int32(-70_000), "-70000"),
        (.uint16(48_100), "uint16 48100"),
        (.uint32(4_000_000_000), "uint32 4000000000"),
        (.int64(-1 << 40), "int64 -1099511627776"),
        (.uint64(UInt64.max), "uint64 18446744073709551615"),
        (.double(2.5), "2.5"),
        (.objectPath("/"), "objectpath '/'"),
        (.objectPath("/org/baton/Daemon"), "objectpath '/org/baton/Daemon'"),
        (.typeSignature("a{sv}(bgav)"), "signature 'a{sv}(bgav)'"),
        (.typeSignature(""), "signature ''"),
        (.variant(.int32(1)), "<1>"),
        (.variant(.variant(.string("x"))), "<<'x'>>"),
        (.bytes([0, 1, 255]), "[byte 0x00, 0x01, 0xff]"),
        (.bytes([]), "@ay []"),
        (.strings(["a", "b"]), "['a', 'b']"),
        (.byteArrays([[1], []]), "[[byte 0x01], @ay []]"),
        (.dictionary(["activation-token": .string("t0k3n"), "pid": .uint32(42), "nested": .variant(.bool(false))]),
         "{'activation-token': <'t0k3n'>, 'nested': <<false>>, 'pid': <uint32 42>}"),
        (.dictionary([:]), "@a{sv} {}"),
        (.dictionaries([["id": .string("a")], [:]]), "[{'id': <'a'>}, @a{sv} {}]"),
        (.array(elementType: "o", [.objectPath("/a"), .objectPath("/b/c")]),
         "[objectpath '/a', '/b/c']"),
        (.array(elementType: "o", []), "@ao []"),
        (.array(elementType: "v", [.variant(.int32(1)), .variant(.string("x")), .variant(.dictionary([:]))]),
         "[<1>, <'x'>, <@a{sv} {}>]"),
        (.array(elementType: "v", []), "@av []"),
        (.array(elementType: "i", [.int32(3), .int32(-1)]), "[3, -1]"),
        (.array(elementType: "as", [.strings(["x"]), .strings([])]), "[['x'], @as []]"),
        (.array(elementType: "(bgav)", [.tuple([.bool(true), .typeSignature("s"), .array(elementType: "v", [])])]),
         "[(true, signature 's', @av [])]"),
        (.dict(keyType: "s", valueType: "s", [.string("b"): .string("2"), .string("a"): .string("1")]),
         "{'a': '1', 'b': '2'}"),
        (.dict(keyType: "s", valueType: "s", [:]), "@a{ss} {}"),
        (.dict(keyType: "u", valueType: "as", [.uint32(10): .strings(["x"]), .uint32(2): .strings([])]),
         "{uint32 2: @as [], 10: ['x']}"),
        (.dict(keyType: "s", valueType: "(bgav)", [
            .string("quit"): .tuple([.bool(true), .typeSignature(""), .array(elementType: "v", [])]),
        ]), "{'quit': (true, signature '', @av [])}"),
        (managedObjects,
         "{objectpath '/org/example/App/window/1': {'org.freedesktop.DBus.Properties': @a{sv} {}, "
            + "'org.gtk.Actions': {'enabled': <true>, 'title': <'Draft'>}}, '/org/example/App/window/2': @a{sa{sv}} {}}"),
        (.tuple([.bool(true), .string("activate"), .array(elementType: "v", [.variant(.uint32(1))])]),
         "(true, 'activate', [<uint32 1>])"),
        (.tuple([.string("only")]), "('only',)"),
        (.tuple([.dictionaries([["k": .objectPath("/p")]]), .array(elementType: "a{ss}", [])]),
         "([{'k': <objectpath '/p'>}], @aa{ss} [])"),
    ]

    func testEveryValueSurvivesAGVariantAndMatchesGLibsOwn() throws {
        for (value, text) in Self.cases {
            let made = try value.makeVariant()
            defer { g_variant_unref(made) }
            XCTAssertEqual(GVariantText.typeString(made), value.signature, text)
            XCTAssertEqual(try BusValue(variant: made), value, text)

            let parsed = try GVariantText.parse(text, type: value.signature)
            defer { g_variant_unref(parsed) }
            XCTAssertTrue(g_variant_equal(UnsafeRawPointer(made), UnsafeRawPointer(parsed)) != 0,
                          "made \(GVariantText.print(made)), GLib parsed \(GVariantText.print(parsed))")
            XCTAssertEqual(try BusValue(variant: parsed), value, text)
        }
    }

    func testGeneralFormsOfTheCommonShapesSendTheSameBytes() throws {
        let pairs: [(general: BusValue, specific: BusValue)] = [
            (.array(elementType: "s", [.string("a")]), .strings(["a"])),
            (.array(elementType: "y", [.byte(1), .byte(2)]), .bytes([1, 2])),
            (.array(elementType: "ay", [.bytes([1])]), .byteArrays([[1]])),
            (.dict(keyType: "s", valueType: "v", [.string("k"): .variant(.int32(1))]), .dictionary(["k": .int32(1)])),
            (.array(elementType: "a{sv}", [.dictionary(["k": .bool(true)])]), .dictionaries([["k": .bool(true)]])),
        ]
        for (general, specific) in pairs {
            let variant = try general.makeVariant()
            defer { g_variant_unref(variant) }
            let expected = try specific.makeVariant()
            defer { g_variant_unref(expected) }
            XCTAssertTrue(g_variant_equal(UnsafeRawPointer(variant), UnsafeRawPointer(expected)) != 0, "\(general)")
            XCTAssertEqual(try BusValue(variant: variant), specific, "reads back as the specific case")
            XCTAssertEqual(general.array ?? general.dictionary.map { [.dictionary($0)] }, specific.array
                           ?? specific.dictionary.map { [.dictionary($0)] })
        }
    }

    func testAccessorsReadTheNewShapes() throws {
        let managed = Self.managedObjects
        let window = try XCTUnwrap(managed.dictionary?["/org/example/App/window/1"])
        XCTAssertEqual(window.dictionary?["org.gtk.Actions"]?.dictionary?["title"]?.string, "Draft")
        XCTAssertEqual(managed.entries?.keys.compactMap(\.objectPath).sorted(),
                       ["/org/example/App/window/1", "/org/example/App/window/2"])

        let action = BusValue.tuple([.bool(true), .typeSignature("s"), .array(elementType: "v", [.variant(.string("x"))])])
        XCTAssertEqual(action.tuple?.at(1)?.string, "s", "a signature reads as text")
        XCTAssertEqual(action.tuple?.at(2)?.array?.first?.variant?.string, "x")
        XCTAssertEqual(BusValue.objectPath("/a").string, "/a", "object paths read as strings, as before")
        XCTAssertNil(BusValue.string("/a").objectPath)
        XCTAssertEqual(BusValue.strings(["a"]).array, [.string("a")])
        XCTAssertEqual(BusValue.bytes([7]).array, [.byte(7)])
        XCTAssertEqual(BusValue.dictionary(["k": .int32(1)]).entries, [.string("k"): .int32(1)])
        XCTAssertEqual(BusValue.dict(keyType: "s", valueType: "v", [.string("k"): .variant(.int32(1))]).dictionary,
                       ["k": .int32(1)], "a{sv} made the general way reads like one")
        XCTAssertNil(BusValue.dict(keyType: "u", valueType: "s", [.uint32(1): .string("x")]).dictionary)
        XCTAssertEqual(BusValue.byte(3).integer, 3)
        XCTAssertEqual(BusValue.int16(-3).integer, -3)
        XCTAssertEqual(BusValue.uint64(5).integer, 5)
        XCTAssertNil(BusValue.uint64(.max).integer)
        XCTAssertEqual(BusValue.uint64(.max).number, Double(UInt64.max))
    }

    func testExistingShapesKeepTheirSignaturesAndAccessors() throws {
        let record: [String: BusValue] = ["a": .string("x"), "n": .int32(1), "list": .strings(["p"])]
        XCTAssertEqual(BusValue.dictionary(record).signature, "a{sv}")
        XCTAssertEqual(BusValue.dictionaries([record]).signature, "aa{sv}")
        XCTAssertEqual(BusValue.tuple([.uint16(1), .byteArrays([])]).signature, "(qaay)")
        XCTAssertEqual(BusValue.deserialize(recordOrEmpty: BusValue.serialize(record: record)), record)
        XCTAssertEqual(BusValue.int32(4).number, 4)
        XCTAssertEqual(BusValue.double(0.5).number, 0.5)
    }

    func testNetworkRecordsCarryTheNewShapes() throws {
        let record: [String: BusValue] = [
            "managed": Self.managedObjects,
            "actions": .array(elementType: "v", [.variant(.objectPath("/x"))]),
            "small": .tuple([.byte(1), .int16(-2), .uint64(3)]),
        ]
        XCTAssertEqual(try BusValue.deserialize(record: BusValue.serialize(record: record)), record)
    }

    func testRecordsLeaveOutWhatCannotTravelOverTheNetwork() throws {
        let pipe = try TestPipe()
        let record: [String: BusValue] = [
            "kept": .string("yes"), "descriptor": .fileDescriptor(pipe.readEnd), "path": .objectPath("not a path"),
        ]
        XCTAssertEqual(try BusValue.deserialize(record: BusValue.serialize(record: record)), ["kept": .string("yes")])
    }

    func testFileDescriptorsGatherIntoOneList() throws {
        let pipe = try TestPipe()
        let value = BusValue.tuple([.fileDescriptor(pipe.readEnd), .fileDescriptor(pipe.writeEnd),
                                    .array(elementType: "h", [.fileDescriptor(pipe.readEnd)])])
        let read: BusValue
        do {
            let encoded = try EncodedVariant(value, allowingFileDescriptors: true)
            let list = try XCTUnwrap(encoded.fileDescriptors)
            XCTAssertEqual(g_unix_fd_list_get_length(list), 2, "the same descriptor goes once")
            XCTAssertEqual(GVariantText.print(encoded.variant), "(handle 0, handle 1, [handle 0])")
            read = try BusValue(variant: encoded.variant, fileDescriptors: list)
        }
        guard case .tuple(let members) = read, members.count == 3,
              let readEnd = members[0].fileDescriptor, let writeEnd = members[1].fileDescriptor else {
            return XCTFail("read \(read)")
        }
        XCTAssertNotEqual(readEnd, pipe.readEnd, "a descriptor of its own")
        XCTAssertNotEqual(readEnd.descriptor, pipe.readEnd.descriptor)
        XCTAssertNotEqual(members[2].array?.first?.fileDescriptor?.descriptor, readEnd.descriptor,
                          "each handle read gives a descriptor of its own")
        // The list went with the encoded value; the only write ends left are these two.
        write("through the list", to: writeEnd)
        writeEnd.close()
        pipe.writeEnd.close()
        XCTAssertEqual(readToEnd(readEnd), "through the list")
        XCTAssertNil(try EncodedVariant(.string("no descriptors"), allowingFileDescriptors: true).fileDescriptors)
    }
}

extension BusValue {
    /// ``deserialize(record:)``, or an empty record when it throws.
    static func deserialize(recordOrEmpty bytes: [UInt8]) -> [String: BusValue] {
        (try? deserialize(record: bytes)) ?? [:]
    }
}
