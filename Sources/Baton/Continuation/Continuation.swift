/// One incoming activity on its way to the application: it ends in exactly one outcome.
///
/// The first call of ``complete(with:)`` or ``fail(with:)`` decides; later calls do nothing.
/// A continuation dropped without an outcome fails with ``UserActivityError/cancelled``, and
/// so does one superseded by a newer ``Application/beginContinuation(activityType:)``.
@MainActor
public final class Continuation {
    /// The type of the activity being continued.
    public let activityType: String
    private let application: Application
    /// Whether an outcome was delivered.
    public private(set) var isFinished = false

    init(activityType: String, application: Application) {
        self.activityType = activityType
        self.application = application
    }

    /// Delivers the activity: the delegate's `continue` runs with a restoration handler.
    ///
    /// An activity of another type, or an invalid one, fails the continuation with
    /// ``UserActivityError/handoffFailed(_:)`` instead.
    public func complete(with activity: UserActivity) {
        guard !isFinished else { return }
        guard activity.activityType == activityType else {
            fail(with: UserActivityError.handoffFailed(
                "expected an activity of type \(activityType), got \(activity.activityType)"))
            return
        }
        guard activity.isValid else {
            fail(with: UserActivityError.handoffFailed("the activity was invalidated before delivery"))
            return
        }
        isFinished = true
        application.deliver(activity, for: self)
    }

    /// Fails the continuation: the delegate's `didFailToContinueUserActivityWithType` runs.
    public func fail(with error: any Error) {
        guard !isFinished else { return }
        isFinished = true
        application.deliverFailure(error, activityType: activityType, for: self)
    }

    isolated deinit {
        if !isFinished {
            isFinished = true
            application.deliverFailure(UserActivityError.cancelled, activityType: activityType, for: self)
        }
    }
}
