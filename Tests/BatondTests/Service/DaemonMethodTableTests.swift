import BatonBus
import CGLib
import XCTest
@testable import batond

/// `Daemon.methods`, the one table every `org.baton.Daemon1` call goes through, agrees with
/// the introspection document GDBus checks calls against: the same methods, with the same
/// in arguments. The tests are async: XCTest on Linux cannot run a synchronous test method
/// isolated to the main actor.
@MainActor
final class DaemonMethodTableTests: XCTestCase {
    func testTheTableAndTheIntrospectionDocumentListTheSameMethods() async throws {
        let published = try Self.inArguments(of: BatonService.daemonInterface, in: BatonService.daemonIntrospectionXML)
        let table = Dictionary(uniqueKeysWithValues: Daemon.methods.values.map { ($0.name, $0.arguments) })
        XCTAssertEqual(Set(table.keys), Set(published.keys), "the table's methods are the document's")
        for (name, arguments) in published {
            XCTAssertEqual(table[name], arguments, "\(name)'s in arguments")
        }
    }

    func testEachMethodHasOneRow() async {
        let names = Daemon.methodRows.map(\.name)
        XCTAssertEqual(names.count, Set(names).count, "a method declared twice: \(names)")
        XCTAssertEqual(Daemon.methods.count, names.count)
    }

    func testArgumentsOfAnotherTypeAreRefusedAsTheMethodExpects() async throws {
        let method = try XCTUnwrap(Daemon.methods["SetDeviceBlocked"])
        XCTAssertEqual("\(method.mismatch)", "\(ServiceError.invalidArguments("expected (s, b)"))")
        let arguments = DaemonArguments(values: [.string("device"), .string("yes")], method: method)
        XCTAssertEqual(try arguments.string(0), "device")
        XCTAssertThrowsError(try arguments.bool(1))
        XCTAssertThrowsError(try arguments.string(2), "past the end")
    }

    /// Each method of `interface` in `xml`, with the types of its in arguments, as GDBus reads
    /// the document.
    private static func inArguments(of interface: String, in xml: String) throws -> [String: [String]] {
        var error: UnsafeMutablePointer<GError>?
        let node = try XCTUnwrap(g_dbus_node_info_new_for_xml(xml, &error), "the document does not parse")
        defer { g_dbus_node_info_unref(node) }
        let info = try XCTUnwrap(g_dbus_node_info_lookup_interface(node, interface))
        var methods: [String: [String]] = [:]
        var index = 0
        while let method = info.pointee.methods?[index] {
            var arguments: [String] = []
            var argumentIndex = 0
            while let argument = method.pointee.in_args?[argumentIndex] {
                arguments.append(String(cString: argument.pointee.signature))
                argumentIndex += 1
            }
            methods[String(cString: method.pointee.name)] = arguments
            index += 1
        }
        return methods
    }
}
