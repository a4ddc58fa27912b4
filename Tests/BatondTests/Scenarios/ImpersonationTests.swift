import Foundation
import ServiceFixtures
import XCTest

/// An app can only be itself: registrations are checked against the program the app id's
/// desktop entry names and the claims it declares, an app that cannot prove it is the
/// claimant never goes before one that can (running or installed), claimants are otherwise
/// chosen by origin and activity, registrations are capped per process, and apps talk only
/// to batond.
final class ImpersonationTests: ServiceTestCase {
    /// Short, so a launched app that never registers fails the continuation soon.
    override var batondArguments: [String] { ["--launch-timeout", "8"] }

    private func note(_ text: String) throws -> String {
        try activityFile(["type": "org.baton.test.note", "title": "Note: \(text)", "userInfo": ["text": text],
                          "teamID": "org.baton.test"])
    }

    private func runningApps() throws -> [[String: Any]] {
        (try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []).filter { $0["running"] as? Bool == true }
    }

    private func running(_ appID: String) throws -> [[String: Any]] {
        try runningApps().filter { $0["app-id"] as? String == appID }
    }

    private func gdbusRegister(_ appID: String) throws -> CommandResult {
        try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"),
                        ["call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
                         "--method", "org.baton.Daemon1.Register", appID, "org.baton.test", "['org.baton.test.note']"])
    }

    /// Stops the apps of `appID` that batond started (the session does not know them).
    private func stopLaunched(_ appID: String, keeping kept: [NoteAppProcess] = []) throws {
        let keptPIDs = Set(kept.map { Int($0.child.pid) })
        for record in try running(appID) {
            if let pid = record["pid"] as? Int, !keptPIDs.contains(pid) { kill(Int32(pid), SIGTERM) }
        }
        XCTAssertTrue(waitUntil { try self.running(appID).count == kept.count }, "\(appID) stopped")
    }

    func testAnImpostorOfAnInstalledAppRegistersUnverifiedAndReceivesNothing() throws {
        try session.installDesktopEntry(id: "org.baton.Victim", exec: "env LANG=C /usr/bin/true --victim %U",
                                        teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        let impostor = try startNoteApp("impostor", text: "impostor", extra: ["--app-id", "org.baton.Victim"])
        XCTAssertTrue(batond.log.contains("registered org.baton.Victim"), batond.log)
        XCTAssertTrue(batond.log.contains("unverified: runs ") && batond.log.contains(" but its entry names /usr/bin/true"),
                      "a notice names both programs: \(batond.log)")
        let record = try XCTUnwrap(running("org.baton.Victim").first)
        XCTAssertEqual(record["verified"] as? Bool, false)
        XCTAssertEqual(record["verified-activity-types"] as? [String], [])
        let verification = try XCTUnwrap(record["verification"] as? String)
        XCTAssertTrue(verification.hasPrefix("runs /") && verification.hasSuffix("BatonTestApp but its entry names /usr/bin/true"),
                      verification)
        let table = try session.baton(["apps"]).output
        XCTAssertTrue(table.split(separator: "\n").first?.contains("VERIFICATION") == true, table)
        XCTAssertTrue(table.contains("but its entry names /usr/bin/true"), table)

        // The real app is installed: it is started (and never registers, being /usr/bin/true),
        // and the impostor, though running and claiming the type, gets nothing.
        let result = try session.baton(["continue", "--file", note("for the victim")])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("org.baton.Victim did not register within 8 s of its launch"),
                      result.errorOutput)
        XCTAssertTrue(batond.log.contains("starting org.baton.Victim to continue org.baton.test.note"), batond.log)
        XCTAssertFalse(impostor.eventNames.contains("will-continue"), "the impostor received nothing: \(impostor.eventNames)")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus") {
            let raw = try gdbusRegister("org.baton.Victim")
            XCTAssertEqual(raw.status, 0, raw.errorOutput)
            XCTAssertTrue(waitUntil { self.batond.log.contains("runs /usr/bin/gdbus but its entry names /usr/bin/true") },
                          batond.log)
        }
        try assertServiceAlive()
    }

    func testTheRealAppGoesBeforeAnImpostorRunningOrInstalled() throws {
        try session.installTestAppEntry(id: "org.baton.Real")
        let real = try startNoteApp("real", text: "real", extra: ["--app-id", "org.baton.Real"])
        // Started last, so the most recently active claimant: it would be picked if it could be.
        let impostor = try ImpostorProgram.startNoteApp("impostor", on: session, text: "impostor", appID: "org.baton.Real")
        let records = try running("org.baton.Real")
        XCTAssertEqual(records.map { $0["verified"] as? Bool }, [true, false], "the verified one listed first: \(records)")
        XCTAssertEqual(records.first?["verification"] as? String, "verified")

        XCTAssertEqual(try session.baton(["continue", "--file", note("to the real app")]).status, 0)
        let restored = try XCTUnwrap(real.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "to the real app")

        real.child.stop()
        XCTAssertTrue(waitUntil { try self.running("org.baton.Real").count == 1 })
        let again = try session.baton(["continue", "--file", note("to the installed app")])
        XCTAssertEqual(again.status, 0, "the installed real app is started, not the impostor used: \(again.errorOutput)")
        XCTAssertTrue(batond.log.contains("starting org.baton.Real to continue"), batond.log)
        XCTAssertEqual(try running("org.baton.Real").map { $0["verified"] as? Bool }, [true, false],
                       "the started app registered, verified")
        XCTAssertFalse(impostor.eventNames.contains("will-continue"), "the impostor received nothing: \(impostor.eventNames)")
        try stopLaunched("org.baton.Real", keeping: [impostor])
    }

    /// A verified app is verified only for what its own entry declares: claiming another
    /// team's type, it neither goes before that team's app nor counts as verified for it.
    func testAnAppClaimingTypesItsEntryDoesNotDeclareDoesNotGoBeforeTheirApp() throws {
        try session.installTestAppEntry(id: "org.baton.Real")
        try session.installDesktopEntry(id: "org.evil.App", exec: ServiceSession.product("BatonTestApp").path + " app",
                                        teamID: "org.evil", activityTypes: ["org.evil.thing"])
        let real = try startNoteApp("real", text: "real", extra: ["--app-id", "org.baton.Real"])
        let evil = try startNoteApp("evil", text: "evil", extra: ["--app-id", "org.evil.App"])
        let record = try XCTUnwrap(running("org.evil.App").first)
        XCTAssertEqual(record["verified"] as? Bool, true, "it is the app of its id")
        XCTAssertEqual(record["verified-activity-types"] as? [String], [])
        XCTAssertEqual(record["verification"] as? String, "verified app, but its entry declares team org.evil, not org.baton.test")
        XCTAssertEqual(try runningApps().first?["app-id"] as? String, "org.baton.Real", "verified for a type: listed first")

        XCTAssertEqual(try session.baton(["continue", "--file", note("for the real app")]).status, 0)
        XCTAssertNotNil(real.waitForEvent("restored"))
        XCTAssertFalse(evil.eventNames.contains("will-continue"), "published last, yet passed over: \(evil.eventNames)")
    }

    /// An app started through a wrapper script (as Swift apps setting `LD_LIBRARY_PATH` are)
    /// runs another program than its entry names: it registers unverified instead of being
    /// refused, and batond, having started it, continues this user's own activity in it.
    func testAnAppBehindAWrapperScriptRegistersUnverifiedAndContinuesThisUsersActivities() throws {
        try requireDisplay()
        let trace = session.root.appendingPathComponent("wrapped.trace.jsonl")
        let script = session.root.appendingPathComponent("wrapped-app")
        try """
            #!/bin/sh
            BATON_TRACE=\(trace.path) \(ServiceSession.product("BatonTestApp").path) app --app-id org.baton.Wrapped --text "$1"
            """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        try session.installDesktopEntry(id: "org.baton.Wrapped", exec: "\(script.path) launched",
                                        teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])

        let result = try session.baton(["continue", "--file", note("through the wrapper")])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(NoteAppProcess(root: session.root, name: "wrapped").waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "through the wrapper")
        let record = try XCTUnwrap(running("org.baton.Wrapped").first)
        XCTAssertEqual(record["verified"] as? Bool, false)
        XCTAssertTrue((record["verification"] as? String)?.hasSuffix("but its entry names \(script.path)") == true,
                      "\(record)")
        XCTAssertTrue(batond.log.contains("registered org.baton.Wrapped") && batond.log.contains("unverified: runs "),
                      batond.log)
        try stopLaunched("org.baton.Wrapped")
    }

    /// Among running claimants, another instance of the app the activity comes from goes
    /// before a more recently active app of another id.
    func testAnotherInstanceOfTheOriginsAppGoesFirst() throws {
        try session.installTestAppEntry(id: "org.baton.Real")
        try session.installTestAppEntry(id: "org.baton.Other")
        let first = try startNoteApp("first", text: "first", extra: ["--app-id", "org.baton.Real"])
        let other = try startNoteApp("other", text: "other", extra: ["--app-id", "org.baton.Other"])
        let origin = try startNoteApp("origin", text: "moving", extra: ["--app-id", "org.baton.Real"])
        kill(other.child.pid, SIGUSR1)
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: other (active)" } },
                      "the other app is the most recently active")
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: moving" }?["id"] as? String)
        XCTAssertEqual(try session.baton(["continue", id]).status, 0)
        let restored = try XCTUnwrap(first.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "moving")
        XCTAssertFalse(other.eventNames.contains("will-continue"), other.eventNames.description)
        XCTAssertNotNil(origin.waitForEvent("was-continued"))
    }

    func testListAppsSaysWhichAppsAreVerified() throws {
        try session.installTestAppEntry(id: "org.baton.Installed")
        try startNoteApp("installed", text: "installed", extra: ["--app-id", "org.baton.Installed"])
        try startNoteApp("unknown", text: "unknown", extra: ["--app-id", "org.baton.Unknown"])
        let running = try runningApps()
        let installed = running.first { $0["app-id"] as? String == "org.baton.Installed" }
        let unknown = running.first { $0["app-id"] as? String == "org.baton.Unknown" }
        XCTAssertEqual(installed?["verified"] as? Bool, true)
        XCTAssertEqual(installed?["verification"] as? String, "verified")
        XCTAssertEqual(installed?["verified-activity-types"] as? [String], ["org.baton.test.note"])
        XCTAssertEqual(unknown?["verified"] as? Bool, false)
        XCTAssertEqual(unknown?["verification"] as? String, "no desktop entry")
        let table = try session.baton(["apps"]).output
        let lines = table.split(separator: "\n")
        XCTAssertTrue(lines.first?.contains("VERIFIED") == true && lines.first?.contains("VERIFICATION") == true, table)
        XCTAssertTrue(lines.contains { $0.hasPrefix("org.baton.Installed") && $0.contains(" yes ") && $0.hasSuffix("verified") },
                      table)
        XCTAssertTrue(lines.contains { $0.hasPrefix("org.baton.Unknown") && $0.contains(" no ") && $0.hasSuffix("no desktop entry") },
                      table)
    }

    func testTheMostRecentlyActiveClaimantGetsTheContinuationWhateverItsBusName() throws {
        try requireDisplay()
        let first = try startNoteApp("first", text: "one", extra: ["--app-id", "org.baton.First"])
        let second = try startNoteApp("second", text: "two", extra: ["--app-id", "org.baton.Second"])
        XCTAssertEqual(try session.baton(["continue", "--file", note("to the latest")]).status, 0)
        XCTAssertNotNil(second.waitForEvent("restored"), "the app published last gets it")
        XCTAssertFalse(first.eventNames.contains("will-continue"))

        let restored = second.events.filter { $0["event"] as? String == "restored" }.count
        // The person clicks the first app's window: it becomes the active one (SetActive).
        let desktop = X11Desktop()
        var window: String?
        XCTAssertTrue(waitUntil {
            window = try desktop.windows(pid: first.child.pid) { _ in true }.first
            return window != nil
        })
        try desktop.focus(try XCTUnwrap(window))
        XCTAssertTrue(waitUntil { try runningApps().first?["app-id"] as? String == "org.baton.First" },
                      "the first app is the most recently active: \(String(describing: try? runningApps()))")
        XCTAssertEqual(try session.baton(["continue", "--file", note("back to the first")]).status, 0)
        let back = try XCTUnwrap(first.waitForEvent("restored"), "now the first app is the most recently active")
        XCTAssertEqual((back["userInfo"] as? [String: Any])?["text"] as? String, "back to the first")
        XCTAssertEqual(second.events.filter { $0["event"] as? String == "restored" }.count, restored)
        let names = try runningApps().compactMap { $0["app-id"] as? String }
        XCTAssertEqual(names.first, "org.baton.First", "baton apps lists them in the order they are picked: \(names)")
    }

    func testRegistrationsAreCappedPerProcessAndUnverifiedAppsCannotKeepVerifiedOnesOut() throws {
        func register(_ name: String, count: Int, appID: String = "org.baton.Junk") throws -> ChildProcess {
            let child = try session.start(ServiceSession.product("BatonTestApp"),
                                          ["register", "--count", "\(count)", "--app-id", appID], name: name)
            guard waitUntil(timeout: 20, { child.log.contains("done") }) else {
                throw FixtureError("\(name) never finished registering: \(child.log)")
            }
            return child
        }
        let greedy = try register("greedy", count: 9)
        XCTAssertEqual(greedy.log.components(separatedBy: ": ok").count - 1, 8, greedy.log)
        XCTAssertTrue(greedy.log.contains("registration 9: failed: org.freedesktop.DBus.Error.LimitsExceeded"), greedy.log)
        XCTAssertTrue(greedy.log.contains("already has 8 registrations, the most one process may have"), greedy.log)

        for index in 1...7 {
            let more = try register("junk-\(index)", count: 8)
            XCTAssertFalse(more.log.contains("failed"), more.log)
        }
        XCTAssertEqual(try runningApps().count, 64)
        let refused = try register("one-too-many", count: 1)
        XCTAssertTrue(refused.log.contains("too many unverified apps are registered (at most 64)"), refused.log)

        try session.installTestAppEntry(id: "org.baton.Real")
        let real = try register("real", count: 1, appID: "org.baton.Real")
        XCTAssertTrue(real.log.contains("registration 1: ok"), "a verified app still gets in: \(real.log)")
        let running = try runningApps()
        XCTAssertEqual(running.count, 65)
        XCTAssertEqual(running.filter { $0["verified"] as? Bool == true }.compactMap { $0["app-id"] as? String },
                       ["org.baton.Real"])
        try assertServiceAlive()
    }

    func testAnAppAnswersOnlyBatondNotAnotherOwnerOfItsName() throws {
        batond.stop()
        let impostor = try session.start(ServiceSession.product("BatonTestApp"), ["impostor-daemon"], name: "impostor")
        XCTAssertTrue(waitUntil { impostor.log.contains("impostor owns org.baton.Daemon") }, impostor.log)
        let app = try startNoteApp("note", text: "secret draft", waitForListing: false)
        XCTAssertTrue(waitUntil { app.child.log.contains("which is not the Baton service") }, app.child.log)
        XCTAssertTrue(app.child.log.contains("not batond"), app.child.log)
        XCTAssertTrue(waitUntil { impostor.log.contains("refused: org.freedesktop.DBus.Error.AccessDenied") },
                      "the impostor asked the app to save: \(impostor.log)")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertFalse(impostor.log.contains("answered"), "the app saved nothing for it: \(impostor.log)")
        XCTAssertFalse(impostor.log.contains("Register from") || impostor.log.contains("PublishCurrent from"),
                       "the app neither registered with it nor told it its activity: \(impostor.log)")

        impostor.stop()
        batond = try session.startBatond(name: "batond-real")
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: secret draft" } },
                      "the app registers once batond owns the name")
    }

    func testTheInstalledServiceFileNamesTheProgramBatondRuns() throws {
        let serviceFile = session.servicesFolder.appendingPathComponent("org.baton.Daemon.service")
        try "[D-BUS Service]\nName=org.baton.Daemon\nExec=/usr/bin/env BATON_X=1 \(ServiceSession.product("batond").path)\n"
            .write(to: serviceFile, atomically: true, encoding: .utf8)
        try startNoteApp("trusting", text: "trusting")

        try "[D-BUS Service]\nName=org.baton.Daemon\nExec=/usr/local/bin/batond\n"
            .write(to: serviceFile, atomically: true, encoding: .utf8)
        let wary = try startNoteApp("wary", text: "wary", waitForListing: false)
        XCTAssertTrue(waitUntil { wary.child.log.contains("which is not the Baton service") }, wary.child.log)
        XCTAssertTrue(wary.child.log.contains("not the /usr/local/bin/batond of the installed D-Bus service file"),
                      wary.child.log)
        XCTAssertEqual(try activities().compactMap { $0["title"] as? String }, ["Note: trusting"],
                       "the wary app did not register")
    }
}
