import Foundation
import ServiceFixtures
import XCTest

/// An app can only be itself: registrations are checked against the program the app id's
/// desktop entry names, claimants are chosen by activity, registrations are capped per
/// process, and apps talk only to batond.
final class ImpersonationTests: ServiceTestCase {
    private func note(_ text: String) throws -> String {
        try activityFile(["type": "org.baton.test.note", "title": "Note: \(text)", "userInfo": ["text": text],
                          "teamID": "org.baton.test"])
    }

    private func runningApps() throws -> [[String: Any]] {
        (try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []).filter { $0["running"] as? Bool == true }
    }

    private func gdbusRegister(_ appID: String) throws -> CommandResult {
        try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"),
                        ["call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
                         "--method", "org.baton.Daemon1.Register", appID, "org.baton.test", "['org.baton.test.note']"])
    }

    func testAnImpostorOfAnInstalledAppIsRefusedAndReceivesNothing() throws {
        try session.installDesktopEntry(id: "org.baton.Victim", exec: "env LANG=C /usr/bin/true --victim %U",
                                        teamID: "", activityTypes: [])
        let impostor = try startNoteApp("impostor", text: "impostor", extra: ["--app-id", "org.baton.Victim"],
                                        waitForListing: false)
        XCTAssertTrue(waitUntil { impostor.child.log.contains("refused the registration") }, impostor.child.log)
        XCTAssertTrue(impostor.child.log.contains("org.baton.Error.IdentityMismatch"), impostor.child.log)
        XCTAssertTrue(impostor.child.log.contains("names \"/usr/bin/true\""), impostor.child.log)
        XCTAssertTrue(batond.log.contains("refused the registration of org.baton.Victim"), batond.log)

        XCTAssertEqual(try runningApps().count, 0, "nothing registered")
        XCTAssertTrue(try activities().isEmpty, "nothing published")
        let result = try session.baton(["continue", "--file", note("for the victim")])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("no app on this device continues org.baton.test.note"), result.errorOutput)
        XCTAssertFalse(impostor.eventNames.contains("will-continue"), "the impostor received nothing: \(impostor.eventNames)")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus") {
            let raw = try gdbusRegister("org.baton.Victim")
            XCTAssertNotEqual(raw.status, 0)
            XCTAssertTrue(raw.errorOutput.contains("IdentityMismatch") && raw.errorOutput.contains("/usr/bin/gdbus"),
                          raw.errorOutput)
        }
        try assertServiceAlive()
    }

    func testListAppsSaysWhichAppsAreVerified() throws {
        try session.installTestAppEntry(id: "org.baton.Installed")
        try startNoteApp("installed", text: "installed", extra: ["--app-id", "org.baton.Installed"])
        try startNoteApp("unknown", text: "unknown", extra: ["--app-id", "org.baton.Unknown"])
        let running = try runningApps()
        XCTAssertEqual(running.first { $0["app-id"] as? String == "org.baton.Installed" }?["verified"] as? Bool, true)
        XCTAssertEqual(running.first { $0["app-id"] as? String == "org.baton.Unknown" }?["verified"] as? Bool, false)
        let table = try session.baton(["apps"]).output
        let lines = table.split(separator: "\n")
        XCTAssertTrue(lines.first?.contains("VERIFIED") == true, table)
        XCTAssertTrue(lines.contains { $0.hasPrefix("org.baton.Installed") && $0.contains(" yes ") }, table)
        XCTAssertTrue(lines.contains { $0.hasPrefix("org.baton.Unknown") && $0.contains(" no ") }, table)
    }

    func testTheMostRecentlyActiveClaimantGetsTheContinuationWhateverItsBusName() throws {
        let first = try startNoteApp("first", text: "one", extra: ["--app-id", "org.baton.First"])
        let second = try startNoteApp("second", text: "two", extra: ["--app-id", "org.baton.Second"])
        XCTAssertEqual(try session.baton(["continue", "--file", note("to the latest")]).status, 0)
        XCTAssertNotNil(second.waitForEvent("restored"), "the app published last gets it")
        XCTAssertFalse(first.eventNames.contains("will-continue"))

        let restored = second.events.filter { $0["event"] as? String == "restored" }.count
        kill(first.child.pid, SIGUSR1)
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: one (active)" } },
                      "the first app published again")
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
