import Foundation
import ServiceFixtures
import XCTest

/// What an app sees when batond starts it to continue, and continuations that nothing
/// handles: they fail at once, saying why, instead of waiting out a timeout.
final class LaunchAndDeliveryTests: ServiceTestCase {
    private func note(_ text: String) throws -> String {
        try activityFile(["type": "org.baton.test.note", "title": "Note: \(text)", "userInfo": ["text": text],
                          "teamID": "org.baton.test"])
    }

    /// Every `PublishCurrent` on the bus, as dbus-monitor sees it.
    private func monitorPublications() throws -> ChildProcess {
        let monitor = try session.start(URL(fileURLWithPath: "/usr/bin/dbus-monitor"),
                                        ["--address", session.busAddress,
                                         "type='method_call',interface='org.baton.Daemon1',member='PublishCurrent'"],
                                        name: "monitor")
        XCTAssertTrue(waitUntil(timeout: 5) { monitor.log.contains("NameAcquired") || monitor.log.contains("signal") },
                      "dbus-monitor did not start: \(monitor.log)")
        return monitor
    }

    func testAnAppStartedToContinueSkipsItsOwnWindowAndPublishesOnlyTheRestoredActivity() throws {
        try requireDisplay()
        let monitor = try monitorPublications()
        defer { monitor.stop() }
        let trace = session.root.appendingPathComponent("launched.trace.jsonl")
        try session.installDesktopEntry(
            id: "org.baton.TestApp",
            exec: "env BATON_TRACE=\(trace.path) \(ServiceSession.product("BatonTestApp").path) app --text placeholder --restore-delay 0.3",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        let result = try session.baton(["continue", "--file", note("delivered")])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let launched = NoteAppProcess(root: session.root, name: "launched")
        XCTAssertNotNil(launched.waitForEvent("restored"))
        XCTAssertEqual(launched.eventNames.first, "will-continue",
                       "the launch's own activate made no window (and no activity) first: \(launched.eventNames)")
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: delivered" } },
                      "the restored note is offered")
        XCTAssertFalse(monitor.log.contains("Note: placeholder"),
                       "the window made for the continuation was published before its restore: \(monitor.log)")
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        if let pid = apps.first(where: { $0["running"] as? Bool == true })?["pid"] as? Int { kill(Int32(pid), SIGTERM) }
    }

    func testADelegateThatDeclinesFailsTheContinuationAtOnce() throws {
        let app = try startNoteApp("declining", text: "before", extra: ["--decline"])
        let started = Date()
        let result = try session.baton(["continue", "--file", note("refused")])
        XCTAssertEqual(result.status, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "no timeout was waited out")
        XCTAssertTrue(result.errorOutput.contains("returned false") && result.errorOutput.contains("4608"),
                      result.errorOutput)
        XCTAssertNotNil(app.waitForEvent("failed"))
        XCTAssertFalse(app.eventNames.contains("continued"), "nothing handled it: \(app.eventNames)")
        XCTAssertEqual(app.outcomes.count, 1, "exactly one outcome: \(app.eventNames)")
        XCTAssertTrue(app.child.log.contains("warning") && app.child.log.contains("returned false"), app.child.log)
    }

    func testAnAppWithoutDelegateFailsTheContinuationAtOnceSayingWhy() throws {
        let app = try startNoteApp("no-delegate", text: "before", extra: ["--no-delegate"])
        let started = Date()
        let result = try session.baton(["continue", "--file", note("nobody")])
        XCTAssertEqual(result.status, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "no timeout was waited out")
        XCTAssertTrue(result.errorOutput.contains("no delegate") && result.errorOutput.contains("weak"),
                      result.errorOutput)
        let failed = try XCTUnwrap(app.waitForEvent("failed"))
        XCTAssertTrue((failed["error"] as? String ?? "").contains("no delegate"), "\(failed)")
        XCTAssertFalse(app.eventNames.contains("continued"))
    }

    /// Continuing a running app's own activity when no other app continues its type starts no
    /// second process (which would hand its launch to the running one) and waits for nothing:
    /// it fails at once, saying why.
    func testContinuingTheOnlyAppsOwnActivityFailsAtOnceSayingWhy() throws {
        try session.installDesktopEntry(
            id: "org.baton.TestApp",
            exec: "\(ServiceSession.product("BatonTestApp").path) app --unique --text second",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        _ = try startNoteApp("origin", text: "mine", extra: ["--unique"])
        let listed = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: mine" })
        let id = try XCTUnwrap(listed["id"] as? String)
        let started = Date()
        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 1, result.errorOutput)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "no launch was waited for")
        XCTAssertTrue(result.errorOutput.contains("published this org.baton.test.note activity, and no other app here continues it"),
                      result.errorOutput)
        let running = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
            .filter { $0["running"] as? Bool == true }
        XCTAssertEqual(running.count, 1, "no second process was started: \(running)")
        XCTAssertFalse(batond.log.contains("starting org.baton.TestApp"), batond.log)
    }

    func testASecondInstanceOfAUniqueAppNeverRegistersAndTheFirstContinues() throws {
        let primary = try startNoteApp("primary", text: "first", extra: ["--unique"])
        let appsBefore = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        let registered = appsBefore.filter { $0["running"] as? Bool == true }
        XCTAssertEqual(registered.count, 1, "\(appsBefore)")

        for (name, environment) in [("second", [String: String]()),
                                    ("second-launched", ["BATON_LAUNCH_REASON": "continue",
                                                         "BATON_CONTINUE_TYPE": "org.baton.test.note"])] {
            let second = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--unique", "--text", name],
                                           name: name, environment: environment)
            XCTAssertEqual(second.waitForExit(timeout: 10), 0, "the second process passes its launch on and exits: \(second.log)")
            XCTAssertFalse(second.log.contains("registered with the Baton service"), second.log)
        }
        let appsAfter = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        XCTAssertEqual(appsAfter.filter { $0["running"] as? Bool == true }.count, 1,
                       "only the primary instance registered: \(appsAfter)")
        XCTAssertFalse(batond.log.contains("NameHasNoOwner"), batond.log)

        let result = try session.baton(["continue", "--file", note("to the first")])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(primary.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "to the first")
    }
}
