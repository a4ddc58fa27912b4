import Foundation
import ServiceFixtures
import XCTest

/// A paired device that vanishes without a word (its machine switched off: no FIN, no RST) is
/// noticed by the kernel's watch over the link (TCP keepalive and `TCP_USER_TIMEOUT`), with
/// batond's default settings, within 30 s: the two batonds run in two network namespaces, and
/// B's end of the link between them is taken down.
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
        if (testRun?.totalFailureCount ?? 0) > 0 { devices?.printLogs() }
        devices?.tearDown()
        namespaces?.remove()
    }

    func testAPairedDeviceThatVanishesIsListedAsNotConnectedWithin30Seconds() throws {
        let connected = { try self.devices.device(self.devices.idB, on: self.devices.a)?["connected"] as? Bool == true }
        XCTAssertTrue(waitUntil(timeout: 10, connected), "A lists B as connected")
        // The link quiet, as a paired link at rest is.
        Thread.sleep(forTimeInterval: 1)
        try namespaces.cutB()
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
