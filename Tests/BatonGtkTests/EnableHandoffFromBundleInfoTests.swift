import Baton
import BatonGtk
import CGtk
import Foundation
import XCTest

/// `enableHandoff(bundleInfo:)` takes the team and activity types from the Info.plist, so a
/// document app does not write them again in code.
@MainActor
final class EnableHandoffFromBundleInfoTests: GtkTestCase {
    private func plist(_ body: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("Info-\(UUID().uuidString).plist")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\(body)</dict></plist>
            """.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testTheTeamAndEveryActivityTypeComeFromTheInfoPlist() async throws {
        try setUpApplication()
        let url = try plist("""
            <key>BatonTeamIdentifier</key><string>org.example</string>
            <key>NSUserActivityTypes</key><array><string>org.example.todo.quick-add</string></array>
            <key>CFBundleDocumentTypes</key><array><dict>
              <key>CFBundleTypeName</key><string>To-do list</string>
              <key>CFBundleTypeExtensions</key><array><string>todo</string></array>
              <key>CFBundleTypeMIMETypes</key><array><string>application/x-todo</string></array>
              <key>NSUbiquitousDocumentUserActivityType</key><string>org.example.todo.editing</string>
            </dict></array>
            """)
        let client = try application.enableHandoff(bundleInfo: BundleInfo(contentsOf: url))
        XCTAssertEqual(client.teamIdentifier, "org.example")
        XCTAssertEqual(client.activityTypes, ["org.example.todo.quick-add", "org.example.todo.editing"],
                       "its own types, then its documents'")
        XCTAssertTrue(application.handoff === client)
    }

    func testAnInfoPlistWithoutATeamThrowsAndLeavesHandoffOff() async throws {
        try setUpApplication()
        let url = try plist("<key>NSUserActivityTypes</key><array><string>org.example.todo.quick-add</string></array>")
        XCTAssertThrowsError(try application.enableHandoff(bundleInfo: BundleInfo(contentsOf: url))) { error in
            XCTAssertTrue(String(describing: error).contains("BatonTeamIdentifier is missing"), "\(error)")
        }
        XCTAssertNil(application.handoff)
    }
}
