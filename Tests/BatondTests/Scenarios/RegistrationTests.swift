import Foundation
import ServiceFixtures
import XCTest

/// Apps register and publish their current activity; the CLI lists and inspects it.
final class RegistrationTests: ServiceTestCase {
    func testAppRegistersAndPublishesItsCurrentActivity() throws {
        let app = try startNoteApp("note", text: "hello")
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        let running = try XCTUnwrap(apps.first { $0["running"] as? Bool == true })
        XCTAssertEqual(running["app-id"] as? String, "org.baton.TestApp")
        XCTAssertEqual(running["team-id"] as? String, "org.baton.test")
        XCTAssertEqual(running["activity-types"] as? [String], ["org.baton.test.note"])
        XCTAssertEqual(running["pid"] as? Int, Int(app.child.pid))

        let listed = try XCTUnwrap(activities().first)
        XCTAssertEqual(listed["type"] as? String, "org.baton.test.note")
        XCTAssertEqual(listed["origin"] as? String, "local")
        XCTAssertNil(listed["userInfo"], "a listing never carries userInfo")

        let status = try XCTUnwrap(session.baton(["status", "--json"]).json as? [String: Any])
        XCTAssertEqual((status["current"] as? [String: Any])?["title"] as? String, "Note: hello")
        let text = try session.baton(["status"])
        XCTAssertTrue(text.output.contains("current activity: Note: hello"), text.output)

        app.child.stop()
        XCTAssertTrue(waitUntil { try activities().isEmpty }, "an app that quit is still listed")
        let after = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        XCTAssertFalse(after.contains { $0["running"] as? Bool == true })
    }

    func testInspectReturnsTheActivitySavedNow() throws {
        try startNoteApp("note", text: "fresh text")
        let result = try session.baton(["inspect", "--json"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let object = try XCTUnwrap(result.json as? [String: Any])
        XCTAssertEqual(object["type"] as? String, "org.baton.test.note")
        XCTAssertEqual((object["userInfo"] as? [String: Any])?["text"] as? String, "fresh text")
        let text = try session.baton(["inspect"])
        XCTAssertTrue(text.output.contains("\"text\" : \"fresh text\""), text.output)
    }

    func testInstalledClaimantsAreListed() throws {
        try session.installDesktopEntry(id: "org.baton.Installed", exec: "/bin/false", teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.other"], dbusActivatable: true)
        try session.installDesktopEntry(id: "org.baton.NoClaim", exec: "/bin/false", teamID: "", activityTypes: [])
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        XCTAssertEqual(apps.count, 1, "only entries with a Baton claim are listed: \(apps)")
        XCTAssertEqual(apps.first?["app-id"] as? String, "org.baton.Installed")
        XCTAssertEqual(apps.first?["dbus-activatable"] as? Bool, true)
        XCTAssertEqual(apps.first?["running"] as? Bool, false)
    }

    func testEmptyListings() throws {
        XCTAssertEqual(try session.baton(["activities"]).output, "No activities.\n")
        XCTAssertEqual(try session.baton(["apps"]).output, "No apps.\n")
        XCTAssertEqual((try session.baton(["activities", "--json"]).json as? [[String: Any]])?.count, 0)
        let inspect = try session.baton(["inspect"])
        XCTAssertEqual(inspect.status, 1)
        XCTAssertTrue(inspect.errorOutput.contains("no activity"), inspect.errorOutput)
    }
}
