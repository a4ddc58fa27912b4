import Baton
import BatonTesting
import Benchmark
import BenchmarkFigures

// 3. Elections: `setNeedsElection()` then `runUntilIdle()`, with the activity on the last
// responder of the main window's chain (the far end of the walk).

/// What an election benchmark keeps between samples (the center holds its window weakly).
struct ElectionFixture {
    let center: ActivityCenter
    let scheduler: ManualScheduler
    let activity: UserActivity
    let window: Window
    let responders: [Responder]
}

/// An election over a chain of `depth` responders. With `depth == 0` there is no main
/// window: the election returns at once, leaving the scheduling overhead.
func registerElection(_ figure: Figure, depth: Int) {
    register(figure) {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: MailDraft.activityType, center: center)
        let (window, responders) = ResponderChainBuilder.window(depth: max(depth, 1))
        responders[responders.count - 1].userActivity = activity
        if depth > 0 { center.mainWindow = window }
        scheduler.runUntilIdle()
        if depth > 0 { precondition(center.currentActivity === activity, "the setup elects the activity") }
        return ElectionFixture(center: center, scheduler: scheduler, activity: activity,
                               window: window, responders: responders)
    } sample: { fixture, sample in
        sample.measure {
            for _ in 0..<sample.operations {
                fixture.center.setNeedsElection()
                blackHole(fixture.scheduler.runUntilIdle())
            }
        }
        blackHole(fixture.center.currentActivity)
        if depth > 0 {
            precondition(fixture.center.currentActivity === fixture.activity, "every election keeps it")
        }
    }
}
