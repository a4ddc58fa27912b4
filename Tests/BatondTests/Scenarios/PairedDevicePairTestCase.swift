import ServiceFixtures
import XCTest

/// Two devices, each a batond on its own bus, paired over pinned TLS before each test; their
/// logs printed when a test fails.
class PairedDevicePairTestCase: XCTestCase {
    var devices: DevicePair!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        devices = try DevicePair()
        try devices.pair()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        devices?.tearDown()
    }
}
