import Foundation
import ServiceFixtures
import XCTest

/// A second batond, as session autostart, the systemd unit and D-Bus activation may each
/// start one: it finds the name taken and exits at once with status 0 (so systemd's
/// Restart=on-failure does not start it again), saying so at notice level, never listening,
/// dialing or announcing; the first stays the service.
final class SecondInstanceTests: ServiceTestCase {
    func testASecondBatondExitsQuietlyWithStatusZero() throws {
        let second = try session.start(ServiceSession.product("batond"),
                                       ["--state-dir", session.root.appendingPathComponent("state/second").path,
                                        "--no-discovery", "--listen", "127.0.0.1:0"],
                                       name: "second")
        XCTAssertEqual(second.waitForExit(timeout: 10), 0, second.log)
        XCTAssertTrue(second.log.contains("notice batond: [batond] org.baton.Daemon is owned by another batond"), second.log)
        XCTAssertFalse(second.log.contains(" critical ") || second.log.contains(" error "), second.log)
        XCTAssertFalse(second.log.contains("listening on"), "it never listened, dialed or announced: \(second.log)")
        try assertServiceAlive()
    }
}
