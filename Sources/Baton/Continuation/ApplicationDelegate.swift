/// Hears about incoming activities and saved state, like `NSApplicationDelegate`'s Handoff
/// methods. Every method has a default.
@MainActor
public protocol ApplicationDelegate: AnyObject {
    /// Called at once when a continuation of `userActivityType` begins, before its data
    /// arrives: show that something is coming. The default returns false.
    func application(_ application: Application,
                     willContinueUserActivityWithType userActivityType: String) -> Bool

    /// Called with the continued activity. Put the app into its state, and pass the objects
    /// that present it to `restorationHandler` (now or later); each gets
    /// `restoreUserActivityState`. Return whether the app handled the activity. Returning
    /// false (without calling the handler) hands it to the framework: when it names a
    /// document of a type the app declares for it, the ``DocumentController`` reopens and
    /// restores that document; otherwise the continuation fails at once with
    /// ``UserActivityError/handoffFailed(_:)``, and `didFailToContinue…` is not called, since
    /// this method already ran. The default returns false.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool

    /// Called while a continuation is held up, each time the Baton service says how it stands
    /// (the document it names is still syncing here, say). The default shows it to the person
    /// (``Application/presentContinuationProgress(_:)``) until the continuation ends.
    func application(_ application: Application, didUpdateContinuationProgress progress: ContinuationProgress)

    /// Called instead of `continue` when the continuation failed. The default shows the
    /// error to the person (``Application/presentError(_:)``) unless the continuation was
    /// cancelled.
    func application(_ application: Application,
                     didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error)

    /// Called when the app's `userActivity` could not be sent to the device continuing it:
    /// saving or encoding it failed, for example a `userInfo` over
    /// ``UserActivity/maximumUserInfoSize``. The continuation fails on the other device; here
    /// the app can tell its person, or send less. The default does nothing.
    func application(_ application: Application, didFailToSend userActivity: UserActivity, error: any Error)

    /// Called after an update pass filled a managed activity's `userInfo`: a good place to
    /// add a version key or inspect what will be sent. The default does nothing.
    func application(_ application: Application, didUpdate userActivity: UserActivity)
}

extension ApplicationDelegate {
    public func application(_ application: Application,
                            willContinueUserActivityWithType userActivityType: String) -> Bool {
        false
    }

    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        false
    }

    public func application(_ application: Application, didUpdateContinuationProgress progress: ContinuationProgress) {
        application.showContinuationProgress(progress)
    }

    public func application(_ application: Application,
                            didFailToContinueUserActivityWithType userActivityType: String,
                            error: any Error) {
        application.presentContinuationError(error)
    }

    public func application(_ application: Application, didFailToSend userActivity: UserActivity,
                            error: any Error) {}

    public func application(_ application: Application, didUpdate userActivity: UserActivity) {}
}
