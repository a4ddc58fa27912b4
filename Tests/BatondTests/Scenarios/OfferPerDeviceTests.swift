import Foundation
import ServiceFixtures
import XCTest

/// Offers as Handoff shows them: a device offers one activity, the current activity of the
/// app the person used last (its window became active), and each paired device shows one
/// notification for it, replaced in place when the offer changes and withdrawn when it goes,
/// with the icon of the app that continues it.
final class OfferPerDeviceTests: NotifiedDevicePairTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        // B continues the notes in its installed app, whose icon its notifications carry.
        try devices.b.installTestAppEntry(id: "org.baton.TestApp", icon: "accessories-text-editor")
    }

    private func startNote(_ name: String, appID: String, text: String) throws -> ChildProcess {
        try devices.a.installTestAppEntry(id: appID)
        let child = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--app-id", appID, "--text", text],
                                        name: name)
        guard devices.a.waitForActivity(titled: "Note: \(text)") != nil else {
            throw FixtureError("\(name) never published its note on A")
        }
        return child
    }

    /// What B lists from A.
    private func offersFromA() throws -> [String] {
        try devices.b.activities().filter { $0["device"] as? String == "alpha" }.compactMap { $0["title"] as? String }
    }

    private var records: [[String: Any]] { notifications.records }

    private var shown: [[String: Any]] { notifications.shown }

    func testADeviceOffersTheActivityOfTheAppUsedLastInOneNotificationReplacedInPlace() throws {
        let one = try startNote("one", appID: "org.baton.TestApp", text: "first app")
        XCTAssertTrue(waitUntil { try self.offersFromA() == ["Note: first app"] }, "B lists A's only activity")
        XCTAssertTrue(waitUntil { self.shown.count == 1 })
        let first = try XCTUnwrap(shown.first)
        XCTAssertEqual(first["summary"] as? String, "Continue “Note: first app”")
        XCTAssertTrue((first["body"] as? String)?.hasPrefix("From “alpha”") == true, "names the device: \(first)")
        XCTAssertEqual(first["appIcon"] as? String, "accessories-text-editor", "the icon of the app that continues it")
        let id = try XCTUnwrap(first["id"] as? Int)

        // A second app publishes: A still offers one activity, and B's notification is replaced.
        let two = try startNote("two", appID: "org.baton.Second", text: "second app")
        let listedOnA = try devices.a.activities().compactMap { $0["title"] as? String }
        XCTAssertEqual(Set(listedOnA), ["Note: first app", "Note: second app"], "both stay listed on A")
        XCTAssertTrue(waitUntil { try self.offersFromA() == ["Note: second app"] },
                      "B lists only the activity of the app used last: \(String(describing: try? offersFromA()))")
        XCTAssertTrue(waitUntil { self.shown.count == 2 })
        XCTAssertEqual(shown.last?["replaces"] as? Int, id, "replaced, not stacked")
        XCTAssertEqual(shown.last?["id"] as? Int, id)
        XCTAssertEqual(shown.last?["summary"] as? String, "Continue “Note: second app”")

        // The first app's window becomes the active one: its activity is offered instead.
        let desktop = X11Desktop()
        var window: String?
        XCTAssertTrue(waitUntil {
            window = try desktop.windows(pid: one.pid) { _ in true }.first
            return window != nil
        })
        try desktop.focus(try XCTUnwrap(window))
        XCTAssertTrue(waitUntil { try self.offersFromA() == ["Note: first app"] },
                      "B follows the active window: \(String(describing: try? offersFromA()))")
        XCTAssertTrue(waitUntil { self.shown.count == 3 })
        XCTAssertEqual(shown.last?["replaces"] as? Int, id)

        // Nothing changed: nothing is shown again.
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(shown.count, 3, "no notification for an offer that did not change: \(shown)")

        // The app used last quits: the other app's activity is offered, in the same notification.
        one.stop()
        XCTAssertTrue(waitUntil { try self.offersFromA() == ["Note: second app"] })
        XCTAssertTrue(waitUntil { self.shown.count == 4 })
        XCTAssertEqual(shown.last?["replaces"] as? Int, id)

        // The offer goes: the notification is withdrawn.
        two.stop()
        XCTAssertTrue(waitUntil { try self.offersFromA().isEmpty })
        XCTAssertTrue(waitUntil { self.records.contains { $0["closed"] as? Int == id } }, "withdrawn: \(records)")
        XCTAssertEqual(shown.count, 4)
    }
}
