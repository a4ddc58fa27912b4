import Foundation
import ServiceFixtures
import XCTest

/// Bad input and failing apps: each gets a clear error, batond keeps running, and every
/// willContinue gets exactly one outcome.
final class FaultTests: ServiceTestCase {
    override var batondArguments: [String] { ["--save-timeout", "1", "--restore-timeout", "2"] }

    private func gdbus(_ method: String, _ arguments: [String]) throws -> CommandResult {
        try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"),
                        ["call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
                         "--method", "org.baton.Daemon1.\(method)"] + arguments)
    }

    func testMalformedCallsGetErrorsAndChangeNothing() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"), "gdbus is missing")
        let cases: [(String, [String], String)] = [
            ("Register", ["1", "2"], "InvalidArgs"),
            ("Register", ["not an id", "org.x", "['a.b']"], "invalid application id"),
            ("Register", ["org.x.App", "", "['a.b']"], "team id"),
            ("Register", ["org.x.App", "org.x", "['']"], "invalid activity type"),
            ("PublishCurrent", ["x", "{'type': <'a.b'>}"], "NotRegistered"),
            ("PublishCurrent", ["x", "{'type': <'a.b'>, 'a-later-field': <uint64 5>}"], "NotRegistered"),
            ("PublishCurrent", ["x", "{'type': <'a.b'>, 'webpage-url': <'https://example.org/\(String(repeating: "x", count: 5000))'>}"],
             "at most 4 KiB"),
            ("Continue", ["no-such-id"], "UnknownActivity"),
            ("Fetch", ["no-such-id"], "UnknownActivity"),
            ("AddOffer", ["[byte 1, 2, 3]", "{}"], "MalformedPayload"),
            ("AddOffer", ["[byte 0x42, 0x41, 0x54, 0x4e, 9]", "{}"], "MalformedPayload"),
            ("ContinuePayload", ["@ay []", "{'team-id': <5>}"], "MalformedPayload"),
            ("NoSuchMethod", [], "UnknownMethod"),
        ]
        for (method, arguments, expected) in cases {
            let result = try gdbus(method, arguments)
            XCTAssertNotEqual(result.status, 0, "\(method) \(arguments) succeeded")
            XCTAssertTrue(result.errorOutput.contains(expected), "\(method) \(arguments): \(result.errorOutput)")
        }
        let huge = "b'" + String(repeating: "x", count: 90_000) + "'"
        let oversized = try gdbus("AddOffer", [huge, "{}"])
        XCTAssertTrue(oversized.errorOutput.contains("UserInfoTooLarge") && oversized.errorOutput.contains("4611"),
                      oversized.errorOutput)
        try assertServiceAlive()
        XCTAssertTrue(try activities().isEmpty, "no bad call listed anything")
    }

    func testInvalidActivityFilesAreRefusedByTheTool() throws {
        let cases: [(String, String)] = [
            ("{\"title\": \"no type\"}", "\"type\" is missing"),
            ("[1, 2]", "not a JSON object"),
            ("{\"type\": \"a.b\", \"webpageURL\": \"ftp://example.org/x\"}", "not an absolute http or https URL"),
            ("{\"type\": \"a.b\", \"userInfo\": {\"big\": \"\(String(repeating: "x", count: 70_000))\"}}", "4611"),
            ("{\"type\": \"org.unknown.type\"}", "no app on this device continues org.unknown.type"),
        ]
        for (json, expected) in cases {
            let url = session.root.appendingPathComponent("\(UUID().uuidString).json")
            try Data(json.utf8).write(to: url)
            let result = try session.baton(["continue", "--file", url.path])
            XCTAssertEqual(result.status, 1, json.prefix(60) + "")
            XCTAssertTrue(result.errorOutput.contains(expected), "\(json.prefix(60)): \(result.errorOutput)")
        }
        let missing = try session.baton(["continue", "--file", "/nonexistent/activity.json"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.errorOutput.contains("cannot read /nonexistent/activity.json"), missing.errorOutput)
        let unknown = try session.baton(["continue", "abc"])
        XCTAssertTrue(unknown.errorOutput.contains("no activity or offer has the id \"abc\""), unknown.errorOutput)
        XCTAssertNotEqual(try session.baton(["continue"]).status, 0, "an id or --file is required")
        try assertServiceAlive()
    }

    func testAnActivityNotEligibleForHandoffIsNeitherListedNorContinued() throws {
        try startNoteApp("private", text: "private", extra: ["--ineligible"], waitForListing: false)
        var status: [String: Any]?
        XCTAssertTrue(waitUntil {
            status = try session.baton(["status", "--json"]).json as? [String: Any]
            return status?["current"] != nil
        })
        let current = try XCTUnwrap(status?["current"] as? [String: Any])
        XCTAssertEqual(current["eligible"] as? Bool, false)
        XCTAssertTrue(try activities().isEmpty, "an ineligible activity is not listed")
        let id = try XCTUnwrap(current["id"] as? String)
        for command in [["continue", id], ["inspect", id]] {
            let result = try session.baton(command)
            XCTAssertEqual(result.status, 1, "\(command)")
            XCTAssertTrue(result.errorOutput.contains("not eligible for Handoff"), result.errorOutput)
        }
        XCTAssertEqual(try session.baton(["inspect"]).status, 0, "the local user may still inspect it")
    }

    func testAnAppThatHangsWhileSavingTimesOut() throws {
        try startNoteApp("hung", text: "stuck", extra: ["--fault", "hang-on-save"])
        let started = Date()
        let result = try session.baton(["inspect"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("did not save the activity in time") && result.errorOutput.contains("4610"),
                      result.errorOutput)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the save timeout is 1 s")
        try assertServiceAlive()
    }

    func testAnAppThatExitsWhileSavingFailsTheFetch() throws {
        try startNoteApp("quitter", text: "gone", extra: ["--fault", "exit-on-save"])
        let result = try session.baton(["inspect"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("quit before it could save the activity") && result.errorOutput.contains("4609"),
                      result.errorOutput)
        try assertServiceAlive()
        XCTAssertTrue(waitUntil { try activities().isEmpty }, "the app that quit is no longer listed")
    }

    func testAPayloadOverTheLimitIsRefused() throws {
        let app = try startNoteApp("huge", text: "big", extra: ["--fault", "huge"])
        let result = try session.baton(["inspect"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("UserInfoTooLarge") || result.errorOutput.contains("4611"),
                      result.errorOutput)
        // The origin app hears it too: a warning in its log, and its delegate's didFailToSend.
        XCTAssertTrue(waitUntil(timeout: 5) { app.child.log.contains("note: didFailToSend org.baton.test.note 4611") },
                      app.child.log)
        XCTAssertTrue(app.child.log.contains("warning") && app.child.log.contains("cannot be sent"), app.child.log)
        try assertServiceAlive()
    }

    func testAFailedFetchGivesTheContinuingAppExactlyOneFailure() throws {
        try startNoteApp("origin", text: "never saved", extra: ["--fault", "hang-on-save"])
        let target = try startNoteApp("target", text: "waiting", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: never saved" }?["id"] as? String)
        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("4610"), result.errorOutput)
        let failed = try XCTUnwrap(target.waitForEvent("failed"))
        XCTAssertTrue((failed["error"] as? String ?? "").contains("in time"), "\(failed)")
        usleep(500_000)
        XCTAssertEqual(target.eventNames.filter { $0 == "will-continue" }.count, 1)
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
    }

    func testAServiceThatDiesMidContinuationGivesExactlyOneFailure() throws {
        batond.stop()
        batond = try session.startBatond(["--save-timeout", "40"], name: "batond-slow")
        try startNoteApp("origin", text: "in flight", extra: ["--fault", "hang-on-save"])
        let target = try startNoteApp("target", text: "waiting", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: in flight" }?["id"] as? String)
        let cli = try session.start(ServiceSession.product("baton"), ["continue", id], name: "cli")
        XCTAssertNotNil(target.waitForEvent("will-continue"))
        batond.stop(SIGKILL)
        let failed = try XCTUnwrap(target.waitForEvent("failed"), "the app fails the continuation itself")
        XCTAssertTrue((failed["error"] as? String ?? "").contains("Baton service stopped"), "\(failed)")
        XCTAssertEqual(cli.waitForExit(timeout: 10), 1, "the tool reports the lost service: \(cli.log)")
        usleep(300_000)
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
    }

    func testAnAppThatNeverRestoresTimesOut() throws {
        let app = try startNoteApp("slow", text: "slow", extra: ["--restore-delay", "30"])
        let file = try activityFile(["type": "org.baton.test.note", "userInfo": ["text": "late"]])
        let result = try session.baton(["continue", "--file", file])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("did not restore the activity within 2 s"), result.errorOutput)
        XCTAssertNotNil(app.waitForEvent("continued"))
        XCTAssertEqual(app.outcomes.filter { $0["event"] as? String == "failed" }.count, 0,
                       "the activity was delivered: no failure follows it")
        try assertServiceAlive()
    }
}
