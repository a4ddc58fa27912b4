import Foundation
import ServiceFixtures
import XCTest

/// The desktop's activation token for a click on Continue reaches the app that continues, so
/// its window may come to the front (Wayland's XDG activation, X11's startup notification): a
/// running app with the continuation, an app batond starts in its environment.
final class ActivationTokenTests: ServiceTestCase {
    private func offerNote(_ text: String) throws {
        let file = try activityFile(["type": "org.baton.test.note", "title": "Note: \(text)",
                                     "userInfo": ["text": text], "teamID": "org.baton.test"])
        let added = try session.baton(["offer", "--file", file, "--device", "laptop"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
    }

    private func startClickingServer(token: String) throws {
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", session.root.appendingPathComponent("n.jsonl").path,
                                        "--invoke", "continue", "--activation-token", token],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
    }

    func testARunningAppGetsTheTokenOfTheClickWithTheContinuation() throws {
        try startClickingServer(token: "token-running-42")
        let app = try startNoteApp("note", text: "idle")
        try offerNote("clicked")
        XCTAssertNotNil(app.waitForEvent("restored"), "the click continued the offer")
        XCTAssertTrue(app.child.log.contains("note: activation token token-running-42"), app.child.log)
    }

    /// `baton continue` in a terminal passes the desktop's token for its key press
    /// (`XDG_ACTIVATION_TOKEN`), as the Baton app passes its own (`ContinueWithOptions`).
    func testBatonContinuePassesItsActivationTokenToTheApp() throws {
        let app = try startNoteApp("note", text: "idle")
        try offerNote("typed")
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: typed" }?["id"] as? String)
        session.environmentOverrides["XDG_ACTIVATION_TOKEN"] = "token-terminal-5"
        defer { session.environmentOverrides["XDG_ACTIVATION_TOKEN"] = nil }
        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertNotNil(app.waitForEvent("restored"))
        XCTAssertTrue(app.child.log.contains("note: activation token token-terminal-5"), app.child.log)

        // A token that is not one (a control character) is refused, and nothing continues.
        try offerNote("refused")
        let second = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: refused" }?["id"] as? String)
        let refused = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"), [
            "call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
            "--method", "org.baton.Daemon1.ContinueWithOptions", second, "{'activation-token': <'bad\\u001btoken'>}"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.errorOutput.contains("activation-token"), refused.errorOutput)
    }

    func testAnAppBatondStartsFindsTheTokenInItsEnvironment() throws {
        try requireDisplay()
        try startClickingServer(token: "token-launched-7")
        let log = session.root.appendingPathComponent("launched.log")
        try session.installDesktopEntry(
            id: "org.baton.TestApp",
            exec: "sh -c '\(ServiceSession.product("BatonTestApp").path) app --text launched 2>>\(log.path)'",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        try offerNote("started")
        XCTAssertTrue(waitUntil(timeout: 15) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("note: activation token token-launched-7")
        }, (try? String(contentsOf: log, encoding: .utf8)) ?? "no log")
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        if let pid = apps.first(where: { $0["running"] as? Bool == true })?["pid"] as? Int { kill(Int32(pid), SIGTERM) }
    }

    func testAnAppTheBusStartsGetsTheTokenWithTheContinueAction() throws {
        try requireDisplay()
        try startClickingServer(token: "token-activated-9")
        let log = session.root.appendingPathComponent("activated.log")
        try session.installDesktopEntry(id: "org.baton.TestApp", exec: "/bin/false", teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"], dbusActivatable: true)
        try """
            [D-BUS Service]
            Name=org.baton.TestApp
            Exec=\(ServiceSession.product("BatonTestApp").path) app --unique --text activated --gapplication-service --log \(log.path)
            """.write(to: session.servicesFolder.appendingPathComponent("org.baton.TestApp.service"), atomically: true,
                      encoding: .utf8)
        try offerNote("activated")
        XCTAssertTrue(waitUntil(timeout: 15) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("note: activation token token-activated-9")
        }, (try? String(contentsOf: log, encoding: .utf8)) ?? "no log")
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        if let pid = apps.first(where: { $0["running"] as? Bool == true })?["pid"] as? Int { kill(Int32(pid), SIGTERM) }
    }

    func testWithoutATokenTheAppGetsNone() throws {
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", session.root.appendingPathComponent("n.jsonl").path,
                                        "--invoke", "continue"], name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
        let app = try startNoteApp("note", text: "idle")
        try offerNote("plain")
        XCTAssertNotNil(app.waitForEvent("restored"))
        XCTAssertTrue(app.child.log.contains("note: activation token none"), app.child.log)
    }
}
