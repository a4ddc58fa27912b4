import Foundation
import ServiceFixtures
import XCTest

/// Another device's activity goes only to an app verified for it: one running the program
/// its desktop entry names, for a team and type that entry declares; never to an impostor of
/// that app, to an app batond cannot check, or to a verified app claiming what its entry does
/// not declare, however recently active they are.
final class PeerImpersonationTests: XCTestCase {
    private var devices: DevicePair!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        devices = try DevicePair()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        devices?.tearDown()
    }

    private func startNote(_ name: String, on session: ServiceSession, text: String, appID: String) throws -> NoteAppProcess {
        let app = NoteAppProcess(root: session.root, name: name)
        app.child = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", text, "--app-id", appID],
                                      name: name, environment: ["BATON_TRACE": app.traceURL.path])
        guard session.waitForActivity(titled: "Note: \(text)") != nil else {
            throw FixtureError("\(name) never registered its activity on its device")
        }
        return app
    }

    private func runningApps(on session: ServiceSession) throws -> [[String: Any]] {
        (try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []).filter { $0["running"] as? Bool == true }
    }

    func testAnotherDevicesActivityGoesOnlyToTheAppVerifiedForIt() throws {
        try devices.pair()
        _ = try startNote("origin", on: devices.a, text: "draft from alpha", appID: "org.baton.TestApp")
        let b = devices.b
        try b.installTestAppEntry(id: "org.baton.Target")
        try b.installDesktopEntry(id: "org.evil.App", exec: ServiceSession.product("BatonTestApp").path + " app",
                                  teamID: "org.evil", activityTypes: ["org.evil.thing"])
        let target = try startNote("target", on: b, text: "real", appID: "org.baton.Target")
        // Started after the target, so more recently active: each would be picked if it could be.
        let others = [
            try ImpostorProgram.startNoteApp("impostor", on: b, text: "impostor", appID: "org.baton.Target"),
            try startNote("evil", on: b, text: "evil", appID: "org.evil.App"),
            try startNote("unknown", on: b, text: "unknown", appID: "org.evil.Unknown"),
        ]
        let apps = try runningApps(on: b)
        XCTAssertEqual(apps.map { $0["verified-activity-types"] as? [String] },
                       [["org.baton.test.note"], [], [], []], "only the target is verified for the type: \(apps)")
        XCTAssertEqual(apps.first?["app-id"] as? String, "org.baton.Target")
        XCTAssertEqual(apps.first { $0["app-id"] as? String == "org.evil.App" }?["verification"] as? String,
                       "verified app, but its entry declares team org.evil, not org.baton.test")
        XCTAssertEqual(apps.first { $0["app-id"] as? String == "org.evil.Unknown" }?["verification"] as? String,
                       "no desktop entry")

        let id = try XCTUnwrap(b.waitForActivity(titled: "Note: draft from alpha", timeout: 15)?["id"] as? String)
        let result = try b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(target.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "draft from alpha")

        // With the real app no longer running, its installed entry is started: not an impostor.
        target.child.stop()
        XCTAssertTrue(waitUntil { try b.activities().allSatisfy { $0["title"] as? String != "Note: real" } })
        let launched = try b.baton(["continue", id])
        XCTAssertEqual(launched.status, 0, launched.errorOutput)
        XCTAssertTrue(devices.batondB.log.contains("starting org.baton.Target to continue"), devices.batondB.log)
        let started = try runningApps(on: b).filter { $0["app-id"] as? String == "org.baton.Target" && $0["verified"] as? Bool == true }
        XCTAssertEqual(started.count, 1, "the started app registered, verified")
        if let pid = started.first?["pid"] as? Int { kill(Int32(pid), SIGTERM) }

        // Uninstalled, with only the others running: no app here may continue it.
        try FileManager.default.removeItem(at: b.dataHome.appendingPathComponent("applications/org.baton.Target.desktop"))
        XCTAssertTrue(waitUntil { try self.runningApps(on: b).allSatisfy { $0["verified-activity-types"] as? [String] == [] } })
        let refused = try b.baton(["continue", id])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("no app on this device continues org.baton.test.note"), refused.errorOutput)
        XCTAssertTrue(devices.batondB.log.contains("passing over unverified claimants"), devices.batondB.log)
        for other in others {
            XCTAssertFalse(other.eventNames.contains("will-continue"), "\(other.child.log): \(other.eventNames)")
        }

        // This user's own activity may still go to an unverified claimant, when nothing else can.
        let file = b.root.appendingPathComponent("local.json")
        try JSONSerialization.data(withJSONObject: ["type": "org.baton.test.note", "userInfo": ["text": "mine"]]).write(to: file)
        XCTAssertEqual(try b.baton(["continue", "--file", file.path]).status, 0)
        XCTAssertNotNil(others[2].waitForEvent("restored"), "the most recently active one")
    }
}
