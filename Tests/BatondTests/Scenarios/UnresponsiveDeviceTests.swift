import Foundation
import ServiceFixtures
import XCTest

/// A person who clicks Continue learns within seconds that the other device stopped
/// answering, and sees the continuation on its way while it takes time, with Cancel. B's
/// notification server clicks Continue on offers and Cancel on progress.
final class UnresponsiveDeviceTests: NotifiedDevicePairTestCase {
    override class var invokedActions: [String] { ["continue", "cancel"] }

    private func shown(_ summary: String) -> [[String: Any]] {
        notifications.shown.filter { $0["summary"] as? String == summary }
    }

    /// A's batond stops answering (its machine asleep, gone without a word): a Continue on B
    /// fails in about 3 s, saying so, and A's offers go from B's list at once.
    func testAContinueToADeviceThatStoppedAnsweringFailsWithinSeconds() throws {
        // The offer is listed on B by hand (no notification clicked): `baton continue` below.
        _ = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "lunch"], name: "note")
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: lunch", timeout: 15), "B lists A's note")
        let offerID = try XCTUnwrap(offer["id"] as? String)
        let batondA = try XCTUnwrap(devices.batondA)
        kill(batondA.pid, SIGSTOP)
        defer { kill(batondA.pid, SIGCONT) }

        let started = Date()
        let result = try devices.b.baton(["continue", offerID])
        let waited = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 1, "the continuation failed: \(result.output)")
        XCTAssertLessThan(waited, 6, "failed within seconds, not after the 10 s fetch timeout: \(result.errorOutput)")
        XCTAssertTrue(result.errorOutput.contains("alpha") && result.errorOutput.contains("no answer"),
                      "says that alpha did not answer: \(result.errorOutput)")
        print("a Continue to a device that stopped answering failed after \(String(format: "%.1f", waited)) s")
        XCTAssertNotEqual(try devices.device(devices.idA, on: devices.b)?["connected"] as? Bool, true, "alpha is not connected")
        XCTAssertNil(try devices.b.activities().first { $0["id"] as? String == offerID }, "its offer is gone")
    }

    /// Continue clicked in a notification, and the other device's app is slow to save: the
    /// progress shows after half a second with Cancel; Cancel ends it, with no failure shown
    /// and no app given anything.
    func testAContinueFromANotificationShowsProgressAndCancels() throws {
        let note = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "lunch"], name: "note")
        XCTAssertNotNil(devices.b.waitForActivity(titled: "Note: lunch", timeout: 15), "B lists A's note")
        // A's app cannot save: its batond answers pings, but the payload would take 5 s.
        kill(note.pid, SIGSTOP)
        defer { kill(note.pid, SIGCONT) }
        XCTAssertTrue(waitUntil(timeout: 10) { !self.shown("Continue “Note: lunch”").isEmpty },
                      "B notifies A's note, and the server clicks Continue: \(notifications.records)")

        XCTAssertTrue(waitUntil(timeout: 5) { !self.shown("Continuing “Note: lunch”…").isEmpty },
                      "the continuation shows its progress: \(notifications.records)")
        let progress = try XCTUnwrap(shown("Continuing “Note: lunch”…").first)
        XCTAssertEqual(progress["body"] as? String, "From “alpha”")
        XCTAssertTrue((progress["actions"] as? [String] ?? []).contains("cancel"), "with Cancel: \(progress)")
        // The server clicks Cancel (and the notification goes with the click, as on a desktop).
        XCTAssertTrue(waitUntil(timeout: 5) { self.devices.batondB.log.contains("continuing offer") },
                      "B's continuation ended: \(devices.batondB.log.suffix(2000))")
        XCTAssertTrue(devices.batondB.log.contains("cancel"), "it was cancelled: \(devices.batondB.log.suffix(2000))")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(shown("Couldn’t Continue “Note: lunch”").isEmpty, "a cancel is not a failure to report")
        XCTAssertFalse(devices.batondB.log.contains("starting org.baton.TestApp"), "no app was started for it")
    }
}

/// Continue clicked in a notification while the other device no longer answers: the progress
/// shows, then goes, and a notification says the device didn't respond, within seconds.
final class UnresponsiveDeviceNotificationTests: NotifiedDevicePairTestCase {
    override class var invokedActions: [String] { ["continue"] }

    func testAContinueFromANotificationToADeviceThatStoppedAnsweringSaysSo() throws {
        _ = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "lunch"], name: "note")
        XCTAssertNotNil(devices.b.waitForActivity(titled: "Note: lunch", timeout: 15), "B lists A's note")
        let batondA = try XCTUnwrap(devices.batondA)
        // Stopped before B notifies the offer: the server's click then reaches a silent device.
        kill(batondA.pid, SIGSTOP)
        defer { kill(batondA.pid, SIGCONT) }
        XCTAssertTrue(waitUntil(timeout: 10) { self.notifications.shown.contains { $0["summary"] as? String == "Continue “Note: lunch”" } },
                      "B notifies A's note: \(notifications.records)")
        let clicked = Date()
        XCTAssertTrue(waitUntil(timeout: 5) { self.notifications.shown.contains { $0["summary"] as? String == "Continuing “Note: lunch”…" } },
                      "the continuation shows its progress: \(notifications.records)")
        let progressID = try XCTUnwrap(notifications.shown.first { $0["summary"] as? String == "Continuing “Note: lunch”…" }?["id"] as? Int)
        XCTAssertTrue(waitUntil(timeout: 8) { self.notifications.shown.contains { $0["summary"] as? String == "Couldn’t Continue “Note: lunch”" } },
                      "the failure is said: \(notifications.records)")
        let waited = Date().timeIntervalSince(clicked)
        XCTAssertLessThan(waited, 6, "within seconds of the click")
        let failure = try XCTUnwrap(notifications.shown.first { $0["summary"] as? String == "Couldn’t Continue “Note: lunch”" })
        XCTAssertEqual(failure["body"] as? String, "“alpha” didn’t respond. Make sure it is awake and on the same network.")
        XCTAssertTrue(notifications.records.contains { $0["closed"] as? Int == progressID }, "the progress went: \(notifications.records)")
        print("a Continue from a notification to a silent device was said to fail \(String(format: "%.1f", waited)) s after the click")
    }
}
