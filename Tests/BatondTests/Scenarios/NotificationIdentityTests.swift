import Foundation
import ServiceFixtures
import XCTest

/// batond's notifications say whose they are: the `desktop-entry` hint names batond's own
/// desktop entry (`org.baton.Daemon.desktop`, installed by scripts/install-service.sh) and
/// the icon is batond's own, so the shell groups them under Baton and the user can set how
/// Baton may notify. BatonTestApp plays the desktop's notification server on the session bus.
final class NotificationIdentityTests: ServiceTestCase {
    func testAnOfferNotificationCarriesBatondsDesktopEntryAndIcon() throws {
        let log = session.root.appendingPathComponent("notifications.jsonl")
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", log.path], name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") },
                      "the test's notification server never owned its name")

        let file = try activityFile(["type": "org.baton.test.note", "title": "Note: offered", "teamID": "org.baton.test",
                                     "userInfo": ["text": "offered"]])
        let added = try session.baton(["offer", "--file", file, "--device", "laptop"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        XCTAssertTrue(waitUntil { !((try? String(contentsOf: log, encoding: .utf8)) ?? "").isEmpty },
                      "batond showed no notification for the offer")
        let line = try XCTUnwrap(String(contentsOf: log, encoding: .utf8).split(separator: "\n").first)
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(record["arguments"] as? Int, 8, "Notify(susssasa{sv}i)")
        XCTAssertEqual(record["appName"] as? String, "Baton", "app_name")
        XCTAssertEqual(record["appIcon"] as? String, "org.baton.Daemon", "app_icon: batond's own icon, not a stock one")
        XCTAssertEqual(record["summary"] as? String, "Continue “Note: offered”")
        let hints = try XCTUnwrap(record["stringHints"] as? [String: String], "hints: \(record)")
        XCTAssertEqual(hints["desktop-entry"], "org.baton.Daemon", "hints: \(hints)")
        XCTAssertEqual(hints["category"], "network")
        try assertServiceAlive()
    }
}
