import Foundation
import ServiceFixtures
import XCTest

/// Two batonds on loopback, each with its own bus, identity and pairings: pairing through
/// the CLI, offers pushed over pinned TLS, continuation with the payload fetched from the
/// origin, and the faults on the way.
final class PeerTests: XCTestCase {
    private var devices: DevicePair!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        devices = try DevicePair(batondArguments: batondArguments)
    }

    var batondArguments: [String] { [] }

    override func tearDown() {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        devices?.tearDown()
    }

    private func offerID(titled title: String, on session: ServiceSession) -> String? {
        session.waitForActivity(titled: title)?["id"] as? String
    }

    func testPairedDevicesContinueEachOthersActivities() throws {
        let code = try devices.pair()
        XCTAssertEqual(code.count, 6)
        XCTAssertEqual(try devices.device(devices.idA, on: devices.b)?["paired"] as? Bool, true)
        XCTAssertEqual(try devices.device(devices.idB, on: devices.a)?["paired"] as? Bool, true)
        for session in [devices.a, devices.b] {
            let file = session.root.appendingPathComponent("config/baton/paired-devices.json")
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
            XCTAssertEqual(mode?.intValue, 0o600)
        }

        let origin = try devices.a.startInstalledNote("origin", text: "from alpha")
        let target = try devices.b.startInstalledNote("target", text: "idle on beta", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(offerID(titled: "Note: from alpha", on: devices.b), "B never listed A's activity")
        let offer = try XCTUnwrap(devices.b.activities().first { $0["id"] as? String == id })
        XCTAssertEqual(offer["device"] as? String, "alpha")
        XCTAssertEqual(offer["device-id"] as? String, devices.idA)
        XCTAssertEqual(offer["origin"] as? String, "offer")
        XCTAssertEqual(offer["team-id"] as? String, "org.baton.test")

        let result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(target.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "from alpha",
                       "the payload was fetched from A when B continued")
        XCTAssertEqual(target.outcomes.count, 1)
        XCTAssertNotNil(origin.waitForEvent("was-continued"), "A's app hears its activity was continued")

        origin.child.stop()
        XCTAssertTrue(waitUntil { try self.devices.b.activities().allSatisfy { $0["device"] as? String != "alpha" } },
                      "the offer is withdrawn when A's activity goes")
    }

    /// Every `await` in batond resumes through Swift's global executor. On libdispatch's, its
    /// first worker thread starts a monitor that wakes batond every second for good; batond
    /// gives those jobs to a GLib pool instead (`GLibGlobalExecutor`), so no libdispatch worker
    /// runs after pairing, links and a handover.
    func testNoLibdispatchWorkerRunsInBatondAfterPairingAndAHandover() throws {
        _ = try devices.pair()
        let origin = try devices.a.startInstalledNote("origin", text: "from alpha")
        _ = try devices.b.startInstalledNote("target", text: "idle on beta", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(offerID(titled: "Note: from alpha", on: devices.b), "B never listed A's activity")
        XCTAssertEqual(try devices.b.baton(["continue", id]).status, 0)
        XCTAssertNotNil(origin.waitForEvent("was-continued"))
        for batond in [devices.batondA, devices.batondB].compactMap({ $0 }) {
            XCTAssertFalse(batond.threadNames.isEmpty, "batond's threads are listed")
            XCTAssertEqual(batond.libdispatchWorkers, [], "libdispatch's worker threads in batond: \(batond.threadNames)")
        }
    }

    func testAnUnpairedDeviceSeesNoOffers() throws {
        _ = try devices.a.startInstalledNote("origin", text: "secret draft")
        XCTAssertTrue(waitUntil { try self.devices.a.activities().contains { $0["title"] as? String == "Note: secret draft" } })
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try devices.b.activities().count, 0, "an unpaired device lists nothing")
        XCTAssertFalse(devices.batondB.log.contains("secret"), "B's batond never saw the title")
        let attempt = try devices.b.baton(["continue", "--file", "/dev/null"])
        XCTAssertNotEqual(attempt.status, 0)
    }

    func testBothDevicesAskingAtOnceAgreeOnOnePairing() throws {
        let onA = try devices.a.start(ServiceSession.product("baton"), ["pair", "beta"], name: "pair-a")
        let onB = try devices.b.start(ServiceSession.product("baton"), ["pair", "alpha"], name: "pair-b")
        XCTAssertEqual(onA.waitForExit(timeout: 15), 0, onA.log)
        XCTAssertEqual(onB.waitForExit(timeout: 15), 0, onB.log)
        let code = { (log: String) in
            log.split(separator: "\n").first { $0.hasPrefix("Verification code: ") }?.dropFirst("Verification code: ".count)
        }
        let codeA = try XCTUnwrap(code(onA.log), onA.log)
        let codeB = try XCTUnwrap(code(onB.log), onB.log)
        XCTAssertNotEqual(codeA, codeB, "each screen shows the code to type on the other")
        XCTAssertEqual(try devices.a.baton(["pair", "--confirm", "beta", String(codeB)]).status, 0)
        XCTAssertEqual(try devices.b.baton(["pair", "--confirm", "alpha", String(codeA)]).status, 0)
        XCTAssertTrue(waitUntil { try self.devices.device(self.devices.idA, on: self.devices.b)?["paired"] as? Bool == true
            && self.devices.device(self.devices.idB, on: self.devices.a)?["paired"] as? Bool == true })
    }

    func testAWrongCodePairsNothing() throws {
        let request = try devices.b.baton(["pair", "alpha"])
        XCTAssertEqual(request.status, 0, request.errorOutput)
        XCTAssertTrue(waitUntil { try self.devices.device(self.devices.idB, on: self.devices.a)?["pairing-code"] != nil })
        let shown = try XCTUnwrap(devices.device(devices.idB, on: devices.a)?["pairing-code"] as? String)
        // The code on A's own screen is the one to type on B: typed on A, it is wrong.
        let confirm = try devices.a.baton(["pair", "--confirm", "beta", shown])
        XCTAssertEqual(confirm.status, 1)
        XCTAssertTrue(confirm.errorOutput.contains("wrong verification code (that is the code this device shows"),
                      confirm.errorOutput)
        XCTAssertTrue(waitUntil { try self.devices.device(self.devices.idA, on: self.devices.b)?["pairing-code"] == nil },
                      "the pairing ends on B too")
        let late = try devices.b.baton(["pair", "--confirm", "alpha", shown])
        XCTAssertEqual(late.status, 1, "nothing left to confirm")
        for (session, other) in [(devices.a, devices.idB), (devices.b, devices.idA)] {
            XCTAssertEqual(try devices.device(other, on: session)?["paired"] as? Bool, false)
            XCTAssertFalse(FileManager.default.fileExists(
                atPath: session.root.appendingPathComponent("config/baton/paired-devices.json").path))
        }
    }

    func testUnpairForgetsOnBothSides() throws {
        try devices.pair()
        let result = try devices.b.baton(["unpair", "alpha"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { try self.devices.device(self.devices.idB, on: self.devices.a)?["paired"] as? Bool == false })
        XCTAssertEqual(try devices.device(devices.idA, on: devices.b)?["paired"] as? Bool, false)
        XCTAssertEqual(try devices.b.baton(["unpair", "nobody"]).status, 1)

        XCTAssertTrue(waitUntil {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["connected"] as? Bool == false
        }, "an unpaired link does not stay open")
        XCTAssertNotNil(try devices.device(devices.idA, on: devices.b), "still listed, as a device seen lately")
        XCTAssertEqual(try devices.pair().count, 6, "and they can pair again: baton pair dials it")
        XCTAssertEqual(try devices.device(devices.idB, on: devices.a)?["paired"] as? Bool, true)
    }

    func testAnOriginThatUnpairsMidFetchFailsTheContinuationAtOnce() throws {
        try devices.pair()
        _ = try devices.a.startInstalledNote("origin", text: "unpairs", extra: ["--fault", "hang-on-save"])
        let target = try devices.b.startInstalledNote("target", text: "idle", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(offerID(titled: "Note: unpairs", on: devices.b))
        let continuing = try devices.b.start(ServiceSession.product("baton"), ["continue", id], name: "continue")
        XCTAssertNotNil(target.waitForEvent("will-continue"))
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        XCTAssertEqual(try devices.a.baton(["unpair", "beta"]).status, 0)
        let failed = try XCTUnwrap(target.waitForEvent("failed", timeout: 15))
        XCTAssertEqual(failed["code"] as? Int, 4609, "connectionUnavailable, not a timeout: \(failed)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "at once, not after the 10 s fetch timeout")
        XCTAssertTrue(waitUntil { !continuing.isRunning })
        XCTAssertEqual(continuing.waitForExit(timeout: 1), 1)
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
    }

    func testPairingsSurviveARestartAndTheLinkComesBack() throws {
        try devices.pair()
        devices.batondB.stop()
        XCTAssertTrue(waitUntil { try self.devices.device(self.devices.idB, on: self.devices.a)?["connected"] as? Bool == false })
        try devices.startB()
        XCTAssertTrue(waitUntil(timeout: 15) {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["connected"] as? Bool == true
        }, "B dials A again")
        XCTAssertEqual(try devices.device(devices.idA, on: devices.b)?["paired"] as? Bool, true, "the pin was kept")
        _ = try devices.a.startInstalledNote("origin", text: "after restart")
        XCTAssertNotNil(offerID(titled: "Note: after restart", on: devices.b))
    }

    func testAPayloadOverTheLimitFailsWithUserInfoTooLarge() throws {
        try devices.pair()
        _ = try devices.a.startInstalledNote("origin", text: "huge", extra: ["--fault", "huge"])
        let target = try devices.b.startInstalledNote("target", text: "idle", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(offerID(titled: "Note: huge", on: devices.b))
        let result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("4611"), result.errorOutput)
        let failed = try XCTUnwrap(target.waitForEvent("failed"))
        XCTAssertEqual(failed["code"] as? Int, 4611)
        XCTAssertEqual(target.outcomes.count, 1)
    }

    func testTheOriginKilledMidFetchGivesOneFailure() throws {
        try devices.pair()
        _ = try devices.a.startInstalledNote("origin", text: "hangs", extra: ["--fault", "hang-on-save"])
        let target = try devices.b.startInstalledNote("target", text: "idle", extra: ["--app-id", "org.baton.Target"])
        let id = try XCTUnwrap(offerID(titled: "Note: hangs", on: devices.b))
        let started = Date()
        let continuing = try devices.b.start(ServiceSession.product("baton"), ["continue", id], name: "continue")
        XCTAssertNotNil(target.waitForEvent("will-continue"), "B's app is told at once")
        Thread.sleep(forTimeInterval: 0.5)
        kill(devices.batondA.pid, SIGKILL)
        let failed = try XCTUnwrap(target.waitForEvent("failed", timeout: 15))
        XCTAssertEqual(failed["code"] as? Int, 4609, "connectionUnavailable: \(failed)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "well within the 10 s fetch timeout")
        XCTAssertTrue(waitUntil { !continuing.isRunning })
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
        XCTAssertEqual(try devices.b.baton(["status"]).status, 0)
    }
}
