import Foundation
import ServiceFixtures
import XCTest

/// A paired device that vanishes without a word (its machine switched off: no FIN, no RST) is
/// noticed by the kernel's watch over the link (TCP keepalive and `TCP_USER_TIMEOUT`), with
/// batond's default settings, within 30 s: the two batonds run in two network namespaces, and
/// B's batond is frozen and its end of the link loses its address.
final class VanishedPeerTests: XCTestCase {
    private var namespaces: NetworkNamespacePair!
    private var devices: DevicePair!

    override func setUpWithError() throws {
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        namespaces = try NetworkNamespacePair(prefix: "baton-gone")
        devices = try DevicePair(namespaces: namespaces)
        try devices.pair()
    }

    override func tearDown() {
        if let batond = devices?.batondB, batond.isRunning { kill(batond.pid, SIGCONT) }
        if (testRun?.totalFailureCount ?? 0) > 0 { devices?.printLogs() }
        devices?.tearDown()
        namespaces?.remove()
    }

    func testAPairedDeviceThatVanishesIsListedAsNotConnectedWithin30Seconds() throws {
        let connected = { try self.devices.device(self.devices.idB, on: self.devices.a)?["connected"] as? Bool == true }
        XCTAssertTrue(waitUntil(timeout: 10, connected), "A lists B as connected")
        // The link quiet, as a paired link at rest is, and the new namespaces' own changes (their
        // IPv6 link-local addresses coming up) over: each makes A check its links at once
        // (NetworkWatcher), as would a carrier lost. Then B's machine goes: its batond stops,
        // and its address with it; A's network does not change, so only the kernel's watch can tell.
        var changes = -1
        var settledSince = Date()
        waitUntil(timeout: 15) {
            let count = self.devices.batondA.log.components(separatedBy: "the network changed").count
            if count != changes {
                changes = count
                settledSince = Date()
            }
            return Date().timeIntervalSince(settledSince) >= 3
        }
        kill(devices.batondB.pid, SIGSTOP)
        try namespaces.silenceB()
        let cut = Date()
        XCTAssertTrue(waitUntil(timeout: 45) {
            Thread.sleep(forTimeInterval: 0.25)
            return try !connected()
        }, "A noticed that B is gone")
        let noticed = Date().timeIntervalSince(cut)
        print("a paired device gone without a word was listed as not connected after \(String(format: "%.1f", noticed)) s")
        XCTAssertLessThan(noticed, 30, "noticed within 30 s")
        XCTAssertGreaterThan(noticed, 5, "not before the link had been quiet for the keepalive (10 s) at least, minus the second before the cut")
        XCTAssertTrue(devices.batondA.log.contains("closed: read failed"),
                      "the link's read failed, the kernel having given up on B: \(devices.batondA.log.suffix(1500))")
    }
}
