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
        complete(with: activity, whenRestored: nil)
    }

    /// Delivers the activity as ``complete(with:)`` does, and calls `restored` once the
    /// restoration handler the delegate was given has run (never, if the delegate does not
    /// call it).
    ///
    /// - Returns: whether the activity was delivered; `false` when the continuation had an
    ///   outcome already, or failed now instead (another type, an invalidated activity).
    @discardableResult
    public func complete(with activity: UserActivity, whenRestored restored: (@MainActor () -> Void)?) -> Bool {
        guard !isFinished else { return false }
        guard activity.activityType == activityType else {
            fail(with: UserActivityError.handoffFailed(
                "expected an activity of type \(activityType), got \(activity.activityType)"))
            return false
        }
        guard activity.isValid else {
            fail(with: UserActivityError.handoffFailed("the activity was invalidated before delivery"))
            return false
        }
        isFinished = true
        application.deliver(activity, for: self, whenRestored: restored)
        return true
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
