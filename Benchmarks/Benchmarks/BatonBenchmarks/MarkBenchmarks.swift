import Baton
import BatonTesting
import Benchmark
import BenchmarkFigures

// 1. needsSave marks.

/// 1a: `needsSave = true` on an activity that is already dirty: the flag check alone. Each
/// sample's first mark, and the pass that cleans the activity after it, are untimed.
func registerRepeatedMarks() {
    register(Figures.repeatedMarks) {
        let (center, scheduler) = ResponderChainBuilder.center()
        return (activity: UserActivity(activityType: MailDraft.activityType, center: center),
                scheduler: scheduler)
    } sample: { fixture, sample in
        let activity = fixture.activity
        activity.needsSave = true
        sample.measure {
            for _ in 0..<sample.operations { activity.needsSave = true }
        }
        blackHole(fixture.scheduler.runUntilIdle())
        precondition(!activity.needsSave && fixture.scheduler.pendingCount == 0, "the pass saves the activity")
    }
}

/// 1b: the first `needsSave = true` on each of `count` clean activities: the flag, the append
/// to the center's queue and, once per batch, scheduling the turn. The pass is untimed.
func registerFirstMarks(count: Int) {
    register(Figures.firstMarks(count)) {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activities = (0..<count).map { _ in
            UserActivity(activityType: MailDraft.activityType, center: center)
        }
        return (activities: activities, scheduler: scheduler)
    } sample: { fixture, sample in
        sample.measure {
            for activity in fixture.activities { activity.needsSave = true }
        }
        blackHole(fixture.scheduler.pendingCount)
        blackHole(fixture.scheduler.runUntilIdle())
        precondition(fixture.scheduler.pendingCount == 0 && fixture.activities.allSatisfy { !$0.needsSave },
                     "the pass saves every activity")
    }
}
