import Baton
import BatonTesting
import Foundation
import XCTest

@MainActor
final class SchedulerTests: XCTestCase {

    /// A turn pending on a replaced scheduler runs once, on the new one.
    func testReplacingTheSchedulerMovesThePendingTurn() async throws {
        let (center, old) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "org.example.swap", center: center)
        let delegate = RecordingActivityDelegate()
        activity.delegate = delegate
        activity.needsSave = true
        XCTAssertEqual(old.pendingCount, 1)

        let new = ManualScheduler()
        center.scheduler = new
        XCTAssertEqual(new.pendingCount, 1, "the pending turn moved to the new scheduler")
        new.runUntilIdle()
        XCTAssertEqual(delegate.willSaveCount, 1)
        old.runUntilIdle()
        XCTAssertEqual(delegate.willSaveCount, 1, "the old scheduler's turn does nothing")

        activity.needsSave = true
        XCTAssertEqual(old.pendingCount, 0)
        XCTAssertEqual(new.pendingCount, 1, "later turns go to the new scheduler")
    }

    func testManualSchedulerRunsNothingUntilToldAndDrainsNestedWork() async throws {
        let scheduler = ManualScheduler()
        var log: [String] = []
        scheduler.schedule { log.append("a") }
        scheduler.schedule {
            log.append("b")
            scheduler.schedule { log.append("nested") }
        }
        XCTAssertEqual(log, [])
        XCTAssertEqual(scheduler.pendingCount, 2)
        XCTAssertEqual(scheduler.runUntilIdle(), 3)
        XCTAssertEqual(log, ["a", "b", "nested"])
        XCTAssertEqual(scheduler.pendingCount, 0)
        XCTAssertFalse(scheduler.runNext())
    }

    func testDispatchMainSchedulerDefersWork() async throws {
        let scheduler = DispatchMainScheduler()
        var ran = false
        scheduler.schedule { ran = true }
        XCTAssertFalse(ran, "schedule must not run the work before it returns")
        for _ in 0..<200 where !ran {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTAssertTrue(ran, "the work runs on a later turn of the main loop")
    }

    func testCenterWithDispatchSchedulerElectsOnLaterTurn() async throws {
        let center = ActivityCenter(scheduler: DispatchMainScheduler())
        center.trace = nil
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let activity = UserActivity(activityType: "test.dispatch", center: center)
        responders[0].userActivity = activity
        center.mainWindow = window
        XCTAssertNil(center.currentActivity)
        for _ in 0..<200 where center.currentActivity == nil {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTAssertTrue(center.currentActivity === activity)
    }

    func testActivitiesReportToTheSharedCenterByDefault() async throws {
        let activity = UserActivity(activityType: "test.default-center")
        XCTAssertTrue(activity.center === ActivityCenter.shared)
        XCTAssertTrue(ActivityCenter.shared === ActivityCenter.shared)
    }
}
