import Foundation
import ServiceFixtures
import XCTest

/// Another device's activity goes only to a verified app: an app running the program its
/// desktop entry names, never one batond cannot check.
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

    func testAnotherDevicesActivityGoesToTheVerifiedAppNotTheImpostor() throws {
        try devices.pair()
        _ = try startNote("origin", on: devices.a, text: "draft from alpha", appID: "org.baton.TestApp")
        try devices.b.installTestAppEntry(id: "org.baton.Target")
        let target = try startNote("target", on: devices.b, text: "real", appID: "org.baton.Target")
        // Started last, so the most recently active claimant: it would be picked if it could be.
        let impostor = try startNote("impostor", on: devices.b, text: "impostor", appID: "org.evil.Impostor")
        let apps = try devices.b.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
        XCTAssertEqual(apps.first { $0["app-id"] as? String == "org.evil.Impostor" }?["verified"] as? Bool, false)
        XCTAssertEqual(apps.first { $0["app-id"] as? String == "org.baton.Target" }?["verified"] as? Bool, true)

        let id = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: draft from alpha", timeout: 15)?["id"] as? String)
        let result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(target.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "draft from alpha")
        XCTAssertFalse(impostor.eventNames.contains("will-continue"), "the impostor heard nothing: \(impostor.eventNames)")
        XCTAssertTrue(devices.batondB.log.contains("passing over unverified claimants"), devices.batondB.log)

        target.child.stop()
        XCTAssertTrue(waitUntil { try self.devices.b.activities().allSatisfy { $0["title"] as? String != "Note: real" } })
        let again = try devices.b.baton(["continue", id])
        XCTAssertEqual(again.status, 1, "with only the impostor running, no app here may continue it")
        XCTAssertTrue(again.errorOutput.contains("no app on this device continues org.baton.test.note"), again.errorOutput)
        XCTAssertFalse(impostor.eventNames.contains("will-continue"), "still nothing: \(impostor.eventNames)")

        let file = devices.b.root.appendingPathComponent("local.json")
        try JSONSerialization.data(withJSONObject: ["type": "org.baton.test.note", "userInfo": ["text": "mine"]]).write(to: file)
        XCTAssertEqual(try devices.b.baton(["continue", "--file", file.path]).status, 0,
                       "this user's own continuation may still go to an unverified app")
        XCTAssertNotNil(impostor.waitForEvent("restored"))
    }
}
