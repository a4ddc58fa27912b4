import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// `GLibSources.sleep(seconds:)`, which batond uses in place of `Task.sleep` (whose libdispatch
/// timers would start libdispatch's pool monitor): it waits its time on the GLib main loop, and
/// a cancelled task stops waiting at once.
@MainActor
final class GLibSleepTests: XCTestCase {
    func testItWaitsItsTimeOnTheMainLoop() async throws {
        let started = Date()
        var woke: Date?
        Task { @MainActor in
            await GLibSources.sleep(seconds: 0.2)
            woke = Date()
        }
        let done = await pumpMainLoop(timeout: 5) { woke != nil }
        XCTAssertTrue(done)
        let waited = try XCTUnwrap(woke).timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.2)
        XCTAssertLessThan(waited, 2)
    }

    func testACancelledTaskStopsWaitingAtOnce() async throws {
        var woke: Date?
        let task = Task { @MainActor in
            await GLibSources.sleep(seconds: 60)
            woke = Date()
        }
        _ = await pumpMainLoop(timeout: 0.1) { false }
        let cancelled = Date()
        task.cancel()
        let ended = await pumpMainLoop(timeout: 5) { woke != nil }
        XCTAssertTrue(ended, "the sleep ended with its task")
        XCTAssertLessThan(try XCTUnwrap(woke).timeIntervalSince(cancelled), 1)
    }

    func testATaskCancelledBeforeItSleepsDoesNotWait() async throws {
        var woke = false
        let task = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            await GLibSources.sleep(seconds: 60)
            woke = true
        }
        let done = await pumpMainLoop(timeout: 2) { woke }
        XCTAssertTrue(done)
        _ = task
    }
}
