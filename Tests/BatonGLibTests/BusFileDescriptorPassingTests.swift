import BatonGLib
import CGLib
import Foundation
import ServiceFixtures
import XCTest

/// Two connections on a private `dbus-daemon`: descriptors in calls and replies, and the new
/// value shapes through a real bus.
@MainActor
final class BusFileDescriptorPassingTests: XCTestCase {
    private static let path = "/org/baton/Test"
    private static let interface = "org.baton.Test"
    private static let introspection = """
        <node>
          <interface name="org.baton.Test">
            <method name="OpenPipe"><arg direction="in" type="s"/><arg direction="out" type="h"/></method>
            <method name="Read"><arg direction="in" type="h"/><arg direction="out" type="s"/></method>
            <method name="Echo"><arg direction="in" type="v"/><arg direction="out" type="v"/></method>
            <method name="BadReply"><arg direction="out" type="o"/></method>
          </interface>
        </node>
        """

    private var bus: PrivateBus?
    private var server: BusConnection?
    private var client: BusConnection?
    private var registration: UInt32 = 0

    override func setUp() async throws {
        let bus = try PrivateBus()
        self.bus = bus
        let server = bus.server
        self.server = server
        client = bus.client
        registration = try server.export(path: Self.path, interface: Self.interface,
                                         introspectionXML: Self.introspection) { call in
            Self.answer(call)
        }
    }

    override func tearDown() async throws {
        if let server { server.unexport(registration) }
        server = nil
        client = nil
        _ = await pumpMainLoop(timeout: 0.2) { false }
        bus?.tearDown()
        bus = nil
    }

    /// The test service: a pipe's read end with text already written, text read from a
    /// descriptor, values echoed, and a reply that cannot be sent.
    private static func answer(_ call: BusMethodCall) {
        switch call.method {
        case "OpenPipe":
            guard let text = call.arguments.at(0)?.string, let pipe = try? TestPipe() else {
                return call.fail(name: "org.baton.Test.Error", message: "no pipe")
            }
            write(text, to: pipe.writeEnd)
            pipe.writeEnd.close()
            call.reply([.fileDescriptor(pipe.readEnd)])
        case "Read":
            guard let descriptor = call.arguments.at(0)?.fileDescriptor else {
                return call.failInvalidArguments("no descriptor")
            }
            call.reply([.string(readToEnd(descriptor))])
        case "Echo":
            call.reply(call.arguments)
        case "BadReply":
            call.reply([.objectPath("not/a/path")])
        default:
            call.failInvalidArguments("unknown method")
        }
    }

    private func call(_ method: String, _ arguments: [BusValue] = []) async throws -> [BusValue] {
        guard let client, let server else { throw XCTSkip("no bus") }
        let destination = server.uniqueName
        return try await Outcome {
            try await client.call(destination, path: Self.path, interface: Self.interface, method: method,
                                  arguments: arguments, timeout: 5)
        }.get()
    }

    /// Waits for GDBus's worker thread to let go of the messages it sent, then counts.
    private func settledDescriptorCount(toward expected: Int) async -> Int {
        _ = await pumpMainLoop(timeout: 5) { openDescriptorCount() == expected }
        return openDescriptorCount()
    }

    func testAReplyCarriesAPipesReadEnd() async throws {
        _ = try await call("Echo", [.variant(.string("warm up"))])
        let before = await settledDescriptorCount(toward: openDescriptorCount())
        for round in 0..<3 {
            let reply = try await call("OpenPipe", [.string("round \(round) through the bus")])
            let descriptor = try XCTUnwrap(reply.at(0)?.fileDescriptor, "\(reply)")
            XCTAssertTrue(descriptor.isOpen)
            XCTAssertEqual(readToEnd(descriptor), "round \(round) through the bus")
        }
        let after = await settledDescriptorCount(toward: before)
        // At most as many: a leak adds descriptors, while the process's other work (earlier
        // tests' connections let go of) may close some meanwhile.
        XCTAssertLessThanOrEqual(after, before, "no descriptor leaked on either side")
    }

    func testACallCarriesADescriptor() async throws {
        _ = try await call("Echo", [.variant(.string("warm up"))])
        let before = await settledDescriptorCount(toward: openDescriptorCount())
        do {
            let pipe = try TestPipe()
            write("written by the caller", to: pipe.writeEnd)
            pipe.writeEnd.close()
            let reply = try await call("Read", [.fileDescriptor(pipe.readEnd)])
            XCTAssertEqual(reply, [.string("written by the caller")])
            XCTAssertTrue(pipe.readEnd.isOpen, "the caller keeps its own descriptor")
        }
        let after = await settledDescriptorCount(toward: before)
        // At most as many: a leak adds descriptors, while the process's other work (earlier
        // tests' connections let go of) may close some meanwhile.
        XCTAssertLessThanOrEqual(after, before, "no descriptor leaked on either side")
    }

    func testTheNewShapesCrossTheBus() async throws {
        let values: [BusValue] = [
            BusValueRoundTripTests.managedObjects,
            .tuple([.bool(true), .string("activate"), .array(elementType: "v", [.variant(.uint32(1))])]),
            .dict(keyType: "s", valueType: "(bgav)", [.string("quit"): .tuple([.bool(true), .typeSignature(""),
                                                                              .array(elementType: "v", [])])]),
            .dictionary(["activation-token": .string("t0k3n"), "window": .objectPath("/org/example/App/window/1")]),
            .dictionaries([["id": .string("a")], [:]]),
            .array(elementType: "o", [.objectPath("/a"), .objectPath("/b")]),
            .array(elementType: "o", []),
            .dict(keyType: "s", valueType: "s", [.string("k"): .string("v")]),
            .tuple([.byte(1), .int16(-2), .uint64(.max), .typeSignature("a{sv}")]),
            .variant(.variant(.int32(7))),
        ]
        for value in values {
            let reply = try await call("Echo", [.variant(value)])
            XCTAssertEqual(reply, [.variant(value)])
        }
    }

    func testValuesThatCannotBeSentAreErrors() async throws {
        do {
            _ = try await call("Echo", [.variant(.objectPath("relative"))])
            XCTFail("sent an invalid object path")
        } catch let error as BusError {
            XCTAssertEqual(error, .failed(BusValueError.invalidObjectPath("relative").description))
        }
        do {
            _ = try await call("BadReply")
            XCTFail("received an invalid object path")
        } catch let error as BusError {
            XCTAssertEqual(error.remoteName, "org.freedesktop.DBus.Error.Failed")
            XCTAssertTrue(error.message.contains("not a D-Bus object path"), error.message)
        }
        // The service still answers.
        let reply = try await call("Echo", [.variant(.string("still here"))])
        XCTAssertEqual(reply, [.variant(.string("still here"))])
    }
}
