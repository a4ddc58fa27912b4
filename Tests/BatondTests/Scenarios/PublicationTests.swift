import Foundation
import ServiceFixtures
import XCTest

/// An app tells batond its current activity at most once per turn of its main loop: ten
/// title changes in one turn (fast typing in a field that makes the title) are one
/// `PublishCurrent`, of the last title.
final class PublicationTests: ServiceTestCase {
    func testTenTitleChangesInOneTurnArePublishedOnce() throws {
        let app = try startNoteApp("burst", text: "before")
        // Every PublishCurrent on the bus, as dbus-monitor sees it.
        let monitor = try session.start(URL(fileURLWithPath: "/usr/bin/dbus-monitor"),
                                        ["--address", session.busAddress,
                                         "type='method_call',interface='org.baton.Daemon1',member='PublishCurrent'"],
                                        name: "monitor")
        defer { monitor.stop() }
        func publications() -> Int {
            monitor.log.components(separatedBy: "member=PublishCurrent").count - 1
        }
        XCTAssertTrue(waitUntil(timeout: 5) { monitor.log.contains("NameAcquired") || monitor.log.contains("signal") },
                      "dbus-monitor did not start: \(monitor.log)")
        kill(app.child.pid, SIGWINCH)
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: burst 10" } },
                      "the last title was never listed")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(publications(), 1, "PublishCurrent calls for one burst: \(monitor.log)")
        XCTAssertFalse(try activities().contains { ($0["title"] as? String)?.hasPrefix("Note: burst") == true
            && $0["title"] as? String != "Note: burst 10" })

        // Each turn of its own is published: a burst later is one more call.
        kill(app.child.pid, SIGUSR1)
        XCTAssertTrue(waitUntil { try activities().contains { ($0["title"] as? String)?.hasSuffix("(active)") == true } })
        XCTAssertTrue(waitUntil(timeout: 5) { publications() == 2 }, "PublishCurrent calls: \(publications())")
    }
}
