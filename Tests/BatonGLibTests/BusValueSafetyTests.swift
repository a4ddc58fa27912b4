import BatonGLib
import CGLib
import XCTest

/// What cannot be sent is an error before anything is sent; what comes from outside gives a
/// value or an error, never a crash.
final class BusValueSafetyTests: XCTestCase {
    private func encodingError(_ value: BusValue, file: StaticString = #filePath, line: UInt = #line) -> BusValueError? {
        do {
            g_variant_unref(try value.makeVariant())
            XCTFail("\(value) was encoded", file: file, line: line)
            return nil
        } catch let error as BusValueError {
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    private func decodingError(_ variant: OpaquePointer, fileDescriptors: UnsafeMutablePointer<GUnixFDList>? = nil)
        -> (any Error)? {
        do {
            let value = try BusValue(variant: variant, fileDescriptors: fileDescriptors)
            XCTFail("read \(value)")
            return nil
        } catch {
            return error
        }
    }

    /// `count` variants around an integer, made with GLib's own calls.
    private func nestedVariants(_ count: Int) -> OpaquePointer {
        var variant: OpaquePointer = g_variant_new_int32(1)
        for _ in 0..<count { variant = g_variant_new_variant(variant) }
        return g_variant_ref_sink(variant)
    }

    private func nestedValue(_ count: Int) -> BusValue {
        (0..<count).reduce(BusValue.int32(1)) { inner, _ in .variant(inner) }
    }

    func testInvalidObjectPathsAreErrors() {
        for path in ["", "org/example", "/org/", "/org//example", "/org/ex-ample", "/org/é", "/a\u{0}b", "//"] {
            XCTAssertFalse(BusValue.isValidObjectPath(path), path)
            XCTAssertEqual(encodingError(.objectPath(path)), .invalidObjectPath(path))
            XCTAssertEqual(encodingError(.array(elementType: "o", [.objectPath(path)])), .invalidObjectPath(path))
            XCTAssertEqual(encodingError(.dictionary(["where": .objectPath(path)])), .invalidObjectPath(path))
            XCTAssertEqual(encodingError(.dict(keyType: "o", valueType: "s", [.objectPath(path): .string("x")])),
                           .invalidObjectPath(path))
        }
        XCTAssertTrue(BusValue.isValidObjectPath("/org/example/App_1"))
        let long = "/" + String(repeating: "x-", count: 100)
        XCTAssertEqual(BusValueError.invalidObjectPath(long).description.count, "not a D-Bus object path: \"\"".count + 81,
                       "outside text is quoted and cut to 80 characters")
    }

    func testInvalidSignaturesAndTypesAreErrors() throws {
        for signature in ["a", "a{vs}", "(", "{ss}", "ms", "z", "()", "s()", String(repeating: "s", count: 256)] {
            XCTAssertEqual(encodingError(.typeSignature(signature)), .invalidSignature(signature), signature)
        }
        for signature in ["", "sa{sv}(bgav)", "a{oa{sa{sv}}}", String(repeating: "s", count: 255)] {
            XCTAssertTrue(BusValue.isValidSignature(signature), signature)
        }
        // GLib takes these two as signature values; read from outside they are refused, so
        // whatever is read can be sent back.
        for text in ["signature '{ss}'", "signature '()'"] {
            let variant = try GVariantText.parse(text)
            defer { g_variant_unref(variant) }
            XCTAssertNotNil(decodingError(variant) as? BusValueError, text)
        }
        for type in ["", "ss", "{sv}", "ms", "()", "a{vs}", "a{as}", "(s", "a", "x)"] {
            XCTAssertEqual(encodingError(.array(elementType: type, [])), .invalidType(type), type)
            XCTAssertEqual(encodingError(.dict(keyType: "s", valueType: type, [:])), .invalidType(type), type)
        }
        for keyType in ["v", "as", "(s)", "", "ss"] {
            XCTAssertEqual(encodingError(.dict(keyType: keyType, valueType: "s", [:])), .invalidType(keyType), keyType)
        }
        XCTAssertEqual(encodingError(.tuple([])), .invalidType("()"), "D-Bus has no empty structs")
        XCTAssertEqual(encodingError(.variant(.tuple([]))), .invalidType("()"))
    }

    func testMembersOfTheWrongTypeAreErrors() {
        XCTAssertEqual(encodingError(.array(elementType: "s", [.string("a"), .int32(1)])),
                       .typeMismatch(expected: "s", found: "i"))
        XCTAssertEqual(encodingError(.array(elementType: "o", [.string("/a")])), .typeMismatch(expected: "o", found: "s"))
        XCTAssertEqual(encodingError(.array(elementType: "v", [.int32(1)])), .typeMismatch(expected: "v", found: "i"))
        XCTAssertEqual(encodingError(.dict(keyType: "s", valueType: "s", [.objectPath("/a"): .string("x")])),
                       .typeMismatch(expected: "s", found: "o"))
        XCTAssertEqual(encodingError(.dict(keyType: "o", valueType: "a{sv}", [.objectPath("/a"): .strings([])])),
                       .typeMismatch(expected: "a{sv}", found: "as"))
    }

    func testFileDescriptorsNeedAMessage() throws {
        let pipe = try TestPipe()
        XCTAssertEqual(encodingError(.fileDescriptor(pipe.readEnd)),
                       .fileDescriptorUnavailable("file descriptors travel only in method calls and replies"))
        pipe.writeEnd.close()
        XCTAssertThrowsError(try EncodedVariant(.fileDescriptor(pipe.writeEnd), allowingFileDescriptors: true)) { error in
            XCTAssertEqual(error as? BusValueError,
                           .fileDescriptorUnavailable("the descriptor was already taken or closed"))
        }
    }

    func testNestingIsBoundedBothWays() throws {
        let deepest = nestedVariants(BusValue.maximumDepth)
        defer { g_variant_unref(deepest) }
        XCTAssertEqual(try BusValue(variant: deepest), nestedValue(BusValue.maximumDepth))
        let made = try nestedValue(BusValue.maximumDepth).makeVariant()
        g_variant_unref(made)

        let tooDeep = nestedVariants(BusValue.maximumDepth + 1)
        defer { g_variant_unref(tooDeep) }
        XCTAssertEqual(decodingError(tooDeep) as? BusValueError, .tooDeep)
        XCTAssertEqual(encodingError(nestedValue(BusValue.maximumDepth + 1)), .tooDeep)
        XCTAssertEqual(encodingError(nestedValue(1_000)), .tooDeep)

        // Empty arrays are as deep as their type says.
        let arrays = String(repeating: "a", count: BusValue.maximumDepth) + "i"
        let fits = try GVariantText.parse("@\(arrays) []")
        defer { g_variant_unref(fits) }
        XCTAssertEqual(try BusValue(variant: fits), .array(elementType: String(arrays.dropFirst()), []))
        let deeper = try GVariantText.parse("@a\(arrays) []")
        defer { g_variant_unref(deeper) }
        XCTAssertEqual(decodingError(deeper) as? BusValueError, .tooDeep)
        XCTAssertEqual(encodingError(.array(elementType: arrays, [])), .tooDeep)

        // A record's values sit three containers deep (array, entry, variant).
        XCTAssertEqual(encodingError(.dictionary(["deep": nestedValue(BusValue.maximumDepth - 2)])), .tooDeep)
        let record = try BusValue.dictionary(["deep": nestedValue(BusValue.maximumDepth - 3)]).makeVariant()
        g_variant_unref(record)
    }

    func testDeepRecordsFromTheNetworkAreRefused() throws {
        let fine = BusValue.serialize(record: ["deep": nestedValue(BusValue.maximumDepth - 3)])
        XCTAssertEqual(try BusValue.deserialize(record: fine), ["deep": nestedValue(BusValue.maximumDepth - 3)])
        // Made by GLib directly, as another program would: 70 variants inside a record.
        let inner = nestedVariants(70)
        defer { g_variant_unref(inner) }
        var entry: OpaquePointer? = g_variant_new_dict_entry(g_variant_new_string("deep"), g_variant_new_variant(inner))
        let record = g_variant_ref_sink(g_variant_new_array(nil, &entry, 1))
        defer { g_variant_unref(record) }
        let size = Int(g_variant_get_size(record))
        let bytes = Array(UnsafeRawBufferPointer(start: g_variant_get_data(record), count: size))
        XCTAssertThrowsError(try BusValue.deserialize(record: bytes)) { error in
            XCTAssertTrue(error is MalformedRecord, "\(error)")
        }
    }

    func testTypesDBusDoesNotHaveAreReportedOrSkipped() throws {
        for (text, signature) in [("@ms 'x'", "ms"), ("{'a', 1}", "{si}"), ("(@ms nothing,)", "(ms)"), ("()", "()")] {
            let variant = try GVariantText.parse(text)
            defer { g_variant_unref(variant) }
            XCTAssertEqual((decodingError(variant) as? UnsupportedVariantType)?.signature, signature)
        }
        let record = try GVariantText.parse("{'maybe': <@ms 'x'>, 'kept': <1>, 'odd': <{'k', 2}>}", type: "a{sv}")
        defer { g_variant_unref(record) }
        XCTAssertEqual(try BusValue(variant: record), .dictionary(["kept": .int32(1)]),
                       "records skip entries of types the enum does not model, so they can grow")
        let body = try GVariantText.parse("()")
        defer { g_variant_unref(body) }
        XCTAssertEqual(try BusValue.members(ofBody: body), [], "an empty message body has no arguments")
        let notABody = try GVariantText.parse("'x'")
        defer { g_variant_unref(notABody) }
        XCTAssertThrowsError(try BusValue.members(ofBody: notABody))
    }

    func testHandlesWithoutTheirDescriptorAreErrors() throws {
        let handle = try GVariantText.parse("(handle 3,)")
        defer { g_variant_unref(handle) }
        XCTAssertEqual(decodingError(handle) as? BusValueError,
                       .fileDescriptorUnavailable("handle 3 came without file descriptors"))
        let pipe = try TestPipe()
        let list = g_unix_fd_list_new()
        defer { g_object_unref(list) }
        XCTAssertEqual(g_unix_fd_list_append(list, try XCTUnwrap(pipe.readEnd.descriptor), nil), 0)
        XCTAssertEqual(decodingError(handle, fileDescriptors: list) as? BusValueError,
                       .fileDescriptorUnavailable("handle 3 is not among the message's 1"))
        let negative = try GVariantText.parse("handle -1")
        defer { g_variant_unref(negative) }
        XCTAssertNotNil(decodingError(negative, fileDescriptors: list) as? BusValueError)
        // In a record, too, a missing descriptor is an error rather than a silent gap.
        let record = try GVariantText.parse("{'fd': <handle 0>}", type: "a{sv}")
        defer { g_variant_unref(record) }
        XCTAssertNotNil(decodingError(record) as? BusValueError)
        XCTAssertNotNil(try BusValue(variant: record, fileDescriptors: list).dictionary?["fd"]?.fileDescriptor)
    }

    func testRandomBytesGiveValuesOrErrors() throws {
        let pipe = try TestPipe()
        let list = g_unix_fd_list_new()
        defer { g_object_unref(list) }
        _ = g_unix_fd_list_append(list, try XCTUnwrap(pipe.readEnd.descriptor), nil)
        var generator = SplitMix64(seed: 0xBA70_0013)
        let types = ["v", "a{sv}", "av", "(a{oa{sa{sv}}}av)", "a{s(bgav)}", "(hhv)", "aav", "(yntqdog)"]
        let pipeEnd = try XCTUnwrap(pipe.readEnd.descriptor)
        let before = descriptorCount(referringToSameAs: pipeEnd)
        XCTAssertGreaterThanOrEqual(before, 2, "the pipe's end and the list's copy")
        var read = 0
        for round in 0..<4_000 {
            let type = types[round % types.count]
            let bytes = (0..<Int(generator.next() % 48)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            defer { g_bytes_unref(data) }
            let variant = type.withCString { g_variant_ref_sink(g_variant_new_from_bytes(baton_variant_type($0), data, 0)) }
            guard let variant else { continue }
            defer { g_variant_unref(variant) }
            if (try? BusValue(variant: variant, fileDescriptors: list)) != nil { read += 1 }
            _ = try? BusValue.deserialize(record: bytes)
        }
        XCTAssertGreaterThan(read, 0)
        XCTAssertEqual(descriptorCount(referringToSameAs: pipeEnd), before,
                       "descriptors resolved from junk are closed again")
    }
}

/// A small deterministic generator, so a failure can be replayed.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
