import Baton
import BatonTesting
import Benchmark
import BenchmarkFigures

// 2. Update passes: activities marked dirty (untimed), then `runUntilIdle()`, the pass.

/// What an update-pass benchmark keeps between samples.
struct UpdatePassFixture {
    let scheduler: ManualScheduler
    let activities: [UserActivity]
    let views: [MailDraftResponder]
}

/// 2a: `count` activities, each owned by one compose view.
func registerUpdatePass(activities count: Int) {
    register(Figures.passOverActivities(count)) {
        let (center, scheduler) = ResponderChainBuilder.center()
        var views: [MailDraftResponder] = []
        var activities: [UserActivity] = []
        for number in 0..<count {
            let view = MailDraftResponder(number: number)
            let activity = UserActivity(activityType: MailDraft.activityType, center: center)
            view.userActivity = activity
            views.append(view)
            activities.append(activity)
        }
        scheduler.runUntilIdle()
        return UpdatePassFixture(scheduler: scheduler, activities: activities, views: views)
    } sample: { fixture, sample in
        for activity in fixture.activities { activity.needsSave = true }
        let ran = sample.measure { fixture.scheduler.runUntilIdle() }
        blackHole(ran)
        precondition(fixture.activities.allSatisfy { $0.isValid && !$0.needsSave && $0.userInfo.count == 3 },
                     "every activity is saved with subject, body and cursor")
    }
}

/// 2b: one activity owned by `count` compose views.
func registerUpdatePass(owners count: Int) {
    register(Figures.passOverOwners(count)) {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: MailDraft.activityType, center: center)
        let views = (0..<count).map { number in
            let view = MailDraftResponder(number: number)
            view.userActivity = activity
            return view
        }
        scheduler.runUntilIdle()
        return UpdatePassFixture(scheduler: scheduler, activities: [activity], views: views)
    } sample: { fixture, sample in
        let activity = fixture.activities[0]
        let updatesBefore = fixture.views[0].updateCount
        activity.needsSave = true
        let ran = sample.measure { fixture.scheduler.runUntilIdle() }
        blackHole(ran)
        precondition(activity.isValid && !activity.needsSave && activity.userInfo.count == 3,
                     "the activity is saved with subject, body and cursor")
        precondition(fixture.views[0].updateCount == updatesBefore + 1, "every owner updates once a pass")
    }
}
