import Foundation
import ServiceFixtures
import XCTest

/// Offers are notified calmly, as Handoff shows them: once when a device starts offering
/// something, not again for each change of the same kind (the next note, the next message),
/// never for what this device just handed over coming back, and the notification goes once
/// used. A's notification server records what it is asked to show.
final class CalmNotificationTests: NotifiedDevicePairTestCase {
    override class var notifiedDevice: KeyPath<DevicePair, ServiceSession> { \.a }

    /// The offers' notifications shown on A (not the pairing request's).
    private var shown: [[String: Any]] {
        notifications.shown.filter { ($0["summary"] as? String ?? "").hasPrefix("Continue") }
    }

    private func offerFromB(titled title: String) throws -> [String: Any]? {
        try devices.a.activities().first { $0["device"] as? String == "beta" && $0["title"] as? String == title }
    }

    func testAChangeOfTheSameKindIsNotNotifiedAgainAndTheNotificationGoesOnceUsed() throws {
        try devices.b.installTestAppEntry(id: "org.baton.TestApp")
        let note = try devices.b.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "draft"], name: "note")
        XCTAssertNotNil(devices.a.waitForActivity(titled: "Note: draft", timeout: 15))
        XCTAssertTrue(waitUntil(timeout: 10) { self.shown.count == 1 }, "A notifies B's offer once: \(shown)")
        XCTAssertEqual(shown.first?["body"] as? String, "From “beta”", "the device's name alone")

        // The person on B goes on typing: the offer changes, of the same kind. No new banner,
        // and the one shown, which no longer says what Continue would open, goes.
        let id = try XCTUnwrap(shown.first?["id"] as? Int)
        kill(note.pid, SIGUSR1)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.offerFromB(titled: "Note: draft (active)") != nil }, "A lists the change")
        XCTAssertTrue(waitUntil(timeout: 5) { self.notifications.records.contains { $0["closed"] as? Int == id } },
                      "the stale notification is withdrawn: \(notifications.records)")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(shown.count, 1, "no new banner for a change of the same kind: \(shown)")
        let offer = try XCTUnwrap(try offerFromB(titled: "Note: draft (active)"))
        XCTAssertEqual(try devices.a.baton(["continue", XCTUnwrap(offer["id"] as? String)]).status, 0, "still listed, and continued")
    }

    func testANotificationGoesOnceUsed() throws {
        try devices.b.installTestAppEntry(id: "org.baton.TestApp")
        _ = try devices.b.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "lunch"], name: "note")
        let offer = try XCTUnwrap(devices.a.waitForActivity(titled: "Note: lunch", timeout: 15))
        XCTAssertTrue(waitUntil(timeout: 10) { self.shown.count == 1 }, "A notifies B's offer: \(shown)")
        let id = try XCTUnwrap(shown.first?["id"] as? Int)
        // Continued from A (as from the app or the notification): the notification goes.
        let result = try devices.a.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil(timeout: 10) { self.notifications.records.contains { $0["closed"] as? Int == id } },
                      "withdrawn once used: \(notifications.records)")
    }

    func testWhatThisDeviceHandedOverComesBackWithoutABanner() throws {
        // A offers its note; B continues it in its own app, which then offers it back.
        try devices.a.installTestAppEntry(id: "org.baton.TestApp")
        _ = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "lunch"], name: "origin")
        try devices.b.installTestAppEntry(id: "org.baton.Target")
        let target = NoteAppProcess(root: devices.b.root, name: "target")
        target.child = try devices.b.start(ServiceSession.product("BatonTestApp"),
                                           ["app", "--app-id", "org.baton.Target", "--text", "idle on beta"],
                                           name: "target", environment: ["BATON_TRACE": target.traceURL.path])
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: lunch", timeout: 15), "B lists A's note")
        XCTAssertEqual(try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)]).status, 0)
        XCTAssertNotNil(target.waitForEvent("restored"), "B's app took the note")
        XCTAssertTrue(waitUntil(timeout: 10) { try self.offerFromB(titled: "Note: lunch") != nil },
                      "A lists what B now offers: the note it handed over")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(shown.contains { ($0["summary"] as? String ?? "").contains("Note: lunch") },
                       "no banner offering back what A just handed over: \(shown)")
    }
}
