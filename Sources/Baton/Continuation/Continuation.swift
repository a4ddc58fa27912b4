/// One incoming activity on its way to the application: it ends in exactly one outcome.
///
/// The first call of ``complete(with:)`` or ``fail(with:)`` decides; later calls do nothing.
/// A continuation dropped without an outcome fails with ``UserActivityError/cancelled``, and
/// so does one superseded by a newer ``Application/beginContinuation(activityType:)``.
@MainActor
public final class Continuation {
    /// The type of the activity being continued.
    public let activityType: String
    /// Whether it brings back a window the app saved at its last quit
    /// (``Application/beginRestoration(activityType:)``), not an activity from elsewhere.
    public let isRestoration: Bool
    private let application: Application
    /// Whether an outcome was delivered.
    public private(set) var isFinished = false
    /// The error that ended the continuation, once it failed: passed to ``fail(with:)``, or
    /// found at delivery (another type, an invalidated activity, no delegate, or a delegate
    /// that declined the activity).
    public private(set) var error: (any Error)?
    /// What opens continuation streams for the activity this continuation delivers: set by
    /// the framework that receives it (BatonGtk) before ``complete(with:)``.
    public var streamProvider: (any ContinuationStreamProvider)?
    /// Whether the delegate's `willContinue…` said it shows the person what is coming (it
    /// returned true): else the framework shows its own progress when the activity is slow
    /// (``Application/activityIsSlow(for:)``), as AppKit does.
    public internal(set) var appShowsProgress = false

    init(activityType: String, application: Application, isRestoration: Bool = false) {
        self.activityType = activityType
        self.application = application
        self.isRestoration = isRestoration
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
    /// When the application has no delegate, or the delegate's `continue…` returns false
    /// without calling the restoration handler, the framework reopens the document the
    /// activity names, if it can (see ``DocumentController``); otherwise the continuation
    /// fails at once with ``UserActivityError/handoffFailed(_:)`` saying which (the trace
    /// records `failed`).
    /// `didFailToContinue…` is not called then: the delegate's `continue…` already ran, and
    /// each continuation gets exactly one of the two.
    ///
    /// - Returns: whether the activity was accepted, by the delegate or by reopening its
    ///   document; `false` when the continuation had an outcome already, or failed now
    ///   instead (another type, an invalidated activity, no delegate, a delegate that
    ///   declined it and no document reopened): ``error`` says why.
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
        activity.continuationStreamProvider = streamProvider
        if let failure = application.deliver(activity, for: self, whenRestored: restored) {
            error = failure
            return false
        }
        return true
    }

    /// Reports how the continuation stands while its activity is held up (its document is
    /// still syncing, say): the delegate hears it (by default the app shows it until the
    /// continuation ends), and the trace records `progress`. Nothing happens once the
    /// continuation has an outcome.
    public func reportProgress(_ message: String, fractionCompleted: Double? = nil) {
        guard !isFinished else { return }
        application.continuation(self, didProgress: ContinuationProgress(activityType: activityType, message: message,
                                                                         fractionCompleted: fractionCompleted))
    }

    /// Fails the continuation: the delegate's `didFailToContinueUserActivityWithType` runs.
    public func fail(with error: any Error) {
        guard !isFinished else { return }
        isFinished = true
        self.error = error
        application.deliverFailure(error, activityType: activityType, for: self)
    }

    isolated deinit {
        if !isFinished {
            isFinished = true
            application.deliverFailure(UserActivityError.cancelled, activityType: activityType, for: self)
        }
    }
}
