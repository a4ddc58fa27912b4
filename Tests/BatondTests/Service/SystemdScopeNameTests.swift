@testable import batond
import BatonGLib
import Foundation
import XCTest

/// The scope names and call arguments batond makes for systemd, checked against systemd's
/// own `systemd-escape` where it is installed.
final class SystemdScopeNameTests: XCTestCase {
    private let ids = ["org.baton.TestApp", "org.baton.Scope-Test", "org.example.Ünïcode-app", "a b", ".hidden", "x:y_z"]

    func testAppIDsAreEscapedAsSystemdEscapes() throws {
        let tool = URL(fileURLWithPath: "/usr/bin/systemd-escape")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: tool.path), "systemd-escape is not installed")
        for id in ids {
            XCTAssertEqual(SystemdScope.escape(id), try run(tool, [id]), id)
        }
        XCTAssertEqual(SystemdScope.escape("org.baton.Scope-Test"), "org.baton.Scope\\x2dTest")
    }

    func testScopeNamesFollowTheDesktopConvention() {
        let name = SystemdScope.unitName(appID: "org.baton.Scope-Test", random: 0xbeef)
        XCTAssertEqual(name, "app-org.baton.Scope\\x2dTest-0000beef.scope")
        XCTAssertNotEqual(SystemdScope.unitName(appID: "org.a.B"), SystemdScope.unitName(appID: "org.a.B"),
                          "two launches, two scopes")
    }

    func testALongAppIDIsShortenedAtWholeEscapesWithinTheLimit() {
        let name = SystemdScope.unitName(appID: "org." + String(repeating: "é-", count: 100), random: 1)
        XCTAssertLessThanOrEqual(name.utf8.count, SystemdScope.maximumUnitNameLength)
        XCTAssertTrue(name.hasSuffix("-00000001.scope"), name)
        let escaped = name.dropFirst("app-".count).dropLast("-00000001.scope".count)
        XCTAssertNotNil(escaped.range(of: #"^org\.(\\x[0-9a-f]{2})+$"#, options: .regularExpression),
                        "whole escapes only: \(escaped)")
    }

    func testTheCallCarriesSystemdsSignatureAndProperties() {
        let arguments = SystemdScope.arguments(unit: "app-x-1.scope", pid: 4242, description: "x, started by batond")
        XCTAssertEqual("(" + arguments.map(\.signature).joined() + ")", "(ssa(sv)a(sa(sv)))")
        XCTAssertEqual(arguments.at(1)?.string, "fail")
        let properties = Dictionary(uniqueKeysWithValues: (arguments.at(2)?.array ?? []).compactMap { property in
            property.tuple.flatMap { fields in fields.at(0)?.string.map { ($0, fields.at(1)?.variant) } }
        })
        XCTAssertEqual(properties["PIDs"], .array(elementType: "u", [.uint32(4242)]))
        XCTAssertEqual(properties["CollectMode"], .string("inactive-or-failed"))
        XCTAssertEqual(properties["Description"], .string("x, started by batond"))
        XCTAssertEqual(arguments.at(3), .array(elementType: "(sa(sv))", []))
    }

    private func run(_ tool: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
