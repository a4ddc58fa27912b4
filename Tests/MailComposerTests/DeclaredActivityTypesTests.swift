import Foundation
import XCTest

/// The app declares its activity types twice, where each consumer looks: Info.plist for the
/// framework and the .desktop entry for the service. Info.plist is the source of truth.
final class DeclaredActivityTypesTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/MailComposer/Resources")

    func testDesktopEntryDeclaresExactlyTheInfoPlistTypes() throws {
        let plistData = try Data(contentsOf: resources.appendingPathComponent("Info.plist"))
        let plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: plistData, format: nil) as? [String: Any])
        let plistTypes = try XCTUnwrap(plist["NSUserActivityTypes"] as? [String])
        let plistTeam = try XCTUnwrap(plist["BatonTeamIdentifier"] as? String)

        let desktop = try String(contentsOf: resources.appendingPathComponent("org.example.MailComposer.desktop"), encoding: .utf8)
        var keys: [String: String] = [:]
        for line in desktop.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            keys[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let desktopTypes = try XCTUnwrap(keys["X-Baton-ActivityTypes"]).split(separator: ";").map(String.init)
        XCTAssertEqual(Set(desktopTypes), Set(plistTypes))
        XCTAssertEqual(desktopTypes.count, plistTypes.count, "no type is listed twice")
        XCTAssertEqual(keys["X-Baton-TeamID"], plistTeam)
        XCTAssertEqual(plist["CFBundleIdentifier"] as? String, "org.example.MailComposer")
        XCTAssertTrue(plistTypes.allSatisfy { $0.split(separator: ".").count >= 3 }, "types are reverse-DNS")
    }
}
