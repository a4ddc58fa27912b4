import Foundation
import ServiceFixtures
import XCTest

/// `baton continue` into running and launched apps, offers and their notifications.
final class ContinuationTests: ServiceTestCase {
    private func note(_ text: String, team: String? = "org.baton.test") throws -> String {
        var object: [String: Any] = ["type": "org.baton.test.note", "title": "Note: \(text)", "userInfo": ["text": text]]
        if let team { object["teamID"] = team }
        return try activityFile(object)
    }

    func testContinueFileIntoARunningApp() throws {
        let app = try startNoteApp("note", text: "before")
        let result = try session.baton(["continue", "--file", note("from a file")])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(app.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "from a file")
        XCTAssertEqual(app.eventNames.filter { $0 == "will-continue" }.count, 1)
        XCTAssertEqual(app.outcomes.count, 1, "exactly one outcome: \(app.eventNames)")
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: from a file" } },
                      "the restored text is saved back into the app's activity")
    }

    func testContinueLaunchesTheInstalledClaimant() throws {
        try requireDisplay()
        let trace = session.root.appendingPathComponent("launched.trace.jsonl")
        try session.installDesktopEntry(
            id: "org.baton.TestApp",
            exec: "env BATON_TRACE=\(trace.path) \(ServiceSession.product("BatonTestApp").path) app --text launched",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        let result = try session.baton(["continue", "--file", note("delivered")])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let launched = NoteAppProcess(root: session.root, name: "launched")
        let restored = try XCTUnwrap(launched.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "delivered")
        // The launched app's own activity may become current in between: only the
        // continuation's events are ordered.
        let continuation = launched.eventNames.filter { ["will-continue", "continued", "restored", "failed"].contains($0) }
        XCTAssertEqual(Array(continuation.prefix(3)), ["will-continue", "continued", "restored"])
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        XCTAssertTrue(apps.contains { $0["running"] as? Bool == true }, "the launched app registered")
        if let pid = apps.first(where: { $0["running"] as? Bool == true })?["pid"] as? Int { kill(Int32(pid), SIGTERM) }
    }

    func testContinueStartsADBusActivatableClaimantThroughDBus() throws {
        try requireDisplay()
        let trace = session.root.appendingPathComponent("activated.trace.jsonl")
        let log = session.root.appendingPathComponent("activated.log")
        try session.installDesktopEntry(id: "org.baton.TestApp", exec: "/bin/false", teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"], dbusActivatable: true)
        // Started as the bus starts a GApplication: as a service, which gets no `activate`.
        try """
            [D-BUS Service]
            Name=org.baton.TestApp
            Exec=/usr/bin/env BATON_TRACE=\(trace.path) \(ServiceSession.product("BatonTestApp").path) app --unique --text activated --gapplication-service --log \(log.path)
            """.write(to: session.servicesFolder.appendingPathComponent("org.baton.TestApp.service"), atomically: true,
                      encoding: .utf8)
        let result = try session.baton(["continue", "--file", note("through D-Bus")])
        XCTAssertEqual(result.status, 0, "the entry's Exec (/bin/false) was not used: \(result.errorOutput)")
        let activated = NoteAppProcess(root: session.root, name: "activated")
        let restored = try XCTUnwrap(activated.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "through D-Bus")
        if let pid = restored["pid"] as? Int { kill(Int32(pid), SIGTERM) }
        let written = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(written.contains(#"note: launch reason continuation(activityType: "org.baton.test.note")"#),
                      "batond's baton-continue action told the app why the bus started it: \(written)")
    }

    func testContinuingALocalActivityTellsItsOriginApp() throws {
        let origin = try startNoteApp("origin", text: "moving")
        let target = try startNoteApp("target", text: "target", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: moving" }?["id"] as? String)
        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(target.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "moving")
        XCTAssertNotNil(origin.waitForEvent("was-continued"), "the origin's delegate hears it was continued")
        XCTAssertFalse(origin.eventNames.contains("will-continue"), "the origin never continues its own activity")
    }

    /// An activity slow to come (its origin takes 2 s to save) shows the framework's own
    /// progress in the continuing app, which keeps the default `willContinue…`, and takes it
    /// down once the activity is restored.
    func testASlowActivityShowsProgressInTheContinuingApp() throws {
        _ = try startNoteApp("origin", text: "slow", extra: ["--fault", "slow-save"])
        let target = try startNoteApp("target", text: "target", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: slow" }?["id"] as? String)
        let command = try session.start(ServiceSession.product("baton"), ["continue", id], name: "continue")
        let desktop = X11Desktop()
        let heading = "Continuing From Another Device"
        XCTAssertTrue(waitUntil(timeout: 1.8) { try !desktop.windows(pid: target.child.pid) { $0 == heading }.isEmpty },
                      "the continuing app shows the activity is on its way before it comes")
        XCTAssertNotNil(target.waitForEvent("restored"))
        XCTAssertEqual(command.waitForExit(timeout: 10), 0, command.log)
        XCTAssertTrue(waitUntil(timeout: 2) { try desktop.windows(pid: target.child.pid) { $0 == heading }.isEmpty },
                      "taken down once it came")
    }

    func testTeamsDoNotMix() throws {
        try startNoteApp("note", text: "team")
        let result = try session.baton(["continue", "--file", note("other team", team: "org.someone.else")])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("no app on this device continues org.baton.test.note for team org.someone.else"),
                      result.errorOutput)
    }

    func testOfferIsListedNotifiedAndContinuedFromTheNotification() throws {
        let log = session.root.appendingPathComponent("notifications.jsonl")
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", log.path, "--invoke", "continue"],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
        let app = try startNoteApp("note", text: "idle")
        let added = try session.baton(["offer", "--file", note("offered"), "--device", "laptop"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        let offerID = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(offerID.count, 12)

        XCTAssertTrue(waitUntil { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Continue") })
        let notification = try XCTUnwrap((try String(contentsOf: log, encoding: .utf8)).split(separator: "\n").first)
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(notification.utf8)) as? [String: Any])
        XCTAssertEqual(record["summary"] as? String, "Continue “Note: offered”")
        XCTAssertEqual(record["body"] as? String, "From laptop")
        XCTAssertTrue((record["actions"] as? [String] ?? []).contains("continue"))

        let restored = try XCTUnwrap(app.waitForEvent("restored"), "the notification's Continue continued the offer")
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "offered")
    }

    /// Continue clicked on a notification that then fails is explained where the person
    /// clicked, in a notification in plain words; the offer's own notification is gone.
    func testAFailedContinueFromANotificationIsSaidInANotification() throws {
        let log = session.root.appendingPathComponent("notifications.jsonl")
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", log.path, "--invoke", "continue"],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
        _ = try startNoteApp("decliner", text: "idle", extra: ["--decline"])
        XCTAssertEqual(try session.baton(["offer", "--file", note("declined"), "--device", "laptop"]).status, 0)
        func records() -> [[String: Any]] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        XCTAssertTrue(waitUntil(timeout: 10) { records().contains { $0["summary"] as? String == "Couldn’t Continue “Note: declined”" } },
                      "the failure is said in a notification: \(records())")
        let failure = try XCTUnwrap(records().first { $0["summary"] as? String == "Couldn’t Continue “Note: declined”" })
        XCTAssertEqual(failure["body"] as? String, "It could not be continued on this computer.")
        XCTAssertEqual(failure["actions"] as? [String], [], "nothing to click in it")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(records().contains { $0["closed"] as? Int == failure["id"] as? Int }, "it stays for the person to read")
    }

    /// `CancelContinue` touches only the caller's own Continue: another caller (here a
    /// `gdbus` of its own connection) cancels nothing, and is told so.
    func testCancelContinueOfAnotherCallersContinueCancelsNothing() throws {
        let added = try session.baton(["offer", "--file", note("kept"), "--device", "laptop"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        let offerID = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let cancel = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"), [
            "call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
            "--method", "org.baton.Daemon1.CancelContinue", offerID,
        ])
        XCTAssertEqual(cancel.status, 0, cancel.errorOutput)
        XCTAssertEqual(cancel.output.trimmingCharacters(in: .whitespacesAndNewlines), "(false,)")
        XCTAssertNotNil(try session.activities().first { $0["id"] as? String == offerID }, "the offer is still listed")
    }

    func testOffersAreListedAndWithdrawn() throws {
        let added = try session.baton(["offer", "--file", note("listed"), "--device", "phone"])
        let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let listed = try XCTUnwrap(activities().first)
        XCTAssertEqual(listed["id"] as? String, id)
        XCTAssertEqual(listed["origin"] as? String, "offer")
        XCTAssertEqual(listed["device"] as? String, "phone")
        let fetched = try session.baton(["inspect", id, "--json"])
        XCTAssertEqual(((fetched.json as? [String: Any])?["userInfo"] as? [String: Any])?["text"] as? String, "listed")
        XCTAssertEqual(try session.baton(["offer", "--remove", id]).status, 0)
        XCTAssertTrue(try activities().isEmpty)
        let again = try session.baton(["offer", "--remove", id])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.errorOutput.contains("no activity or offer has the id \"\(id)\""), again.errorOutput)
    }

    /// Text others chose never acts on the terminal: a title or device name holding terminal
    /// controls is refused by the one check every offer passes, and text batond does not
    /// check (`userInfo`, which `inspect` prints) is printed with them replaced.
    func testTitlesArePrintedWithoutTerminalControls() throws {
        let hostile = "Note \u{1B}]0;pwned\u{07}\u{1B}[2J \u{202E}txt.exe"
        let refused = try session.baton(["offer", "--file", activityFile(["type": "org.baton.test.note", "title": hostile]),
                                         "--device", "phone"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.errorOutput.contains("title"), refused.errorOutput)
        let badDevice = try session.baton(["offer", "--file", activityFile(["type": "org.baton.test.note", "title": "Note"]),
                                           "--device", "phone\u{1B}[31m"])
        XCTAssertNotEqual(badDevice.status, 0, "a device name with controls is refused too")
        XCTAssertTrue(try activities().isEmpty, "nothing was listed")

        let added = try session.baton(["offer", "--file", activityFile(["type": "org.baton.test.note", "title": "Note",
                                                                        "userInfo": ["text": hostile]]),
                                       "--device", "phone"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        let id = try XCTUnwrap(try activities().first?["id"] as? String)
        let inspected = try session.baton(["inspect", id])
        XCTAssertEqual(inspected.status, 0, inspected.errorOutput)
        XCTAssertFalse(inspected.output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" },
                       "no escape sequence or override reaches the terminal: \(inspected.output.debugDescription)")
        XCTAssertTrue(inspected.output.contains("Note \u{FFFD}]0;pwned\u{FFFD}\u{FFFD}[2J \u{FFFD}txt.exe"), inspected.output)
        let json = try session.baton(["inspect", id, "--json"])
        XCTAssertEqual(((json.json as? [String: Any])?["userInfo"] as? [String: Any])?["text"] as? String, hostile,
                       "--json gives the text as it is, escaped as JSON")
    }

    func testExpiredOffersDisappear() throws {
        let file = try activityFile(["type": "org.baton.test.note", "title": "soon gone",
                                     "expirationDate": Date().timeIntervalSince1970 + 0.5])
        XCTAssertEqual(try session.baton(["offer", "--file", file]).status, 0)
        XCTAssertEqual(try activities().count, 1)
        XCTAssertTrue(waitUntil(timeout: 5) { try activities().isEmpty })
    }

    func testWithNoAppTheOfferOpensItsWebPageInTheBrowser() throws {
        let opened = try session.installRecordingBrowser()
        let log = session.root.appendingPathComponent("notifications.jsonl")
        let server = try session.start(ServiceSession.product("BatonTestApp"), ["notification-server", "--log", log.path],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })

        let file = try activityFile(["type": "org.example.unclaimed", "title": "Read me",
                                     "webpageURL": "https://example.org/articles/42"])
        let added = try session.baton(["offer", "--file", file, "--device", "tablet"])
        let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Open in browser") },
                      "the notification offers the browser, as no app here continues the type")
        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: opened, encoding: .utf8)) ?? "").contains("https://example.org/articles/42") })

        let noPage = try session.baton(["continue", "--file", activityFile(["type": "org.example.unclaimed"])])
        XCTAssertEqual(noPage.status, 1, "without a web page there is still no app to continue it")
    }
}
