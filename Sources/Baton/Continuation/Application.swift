/// The application: the last responder of every chain, and where incoming activities enter.
///
/// Create one per process before using the center; its ``delegate`` hears about
/// continuations and update passes.
@MainActor
open class Application: Responder {
    /// The center this application's activities report to.
    public let center: ActivityCenter
    /// Hears about continuations and update passes.
    public weak var delegate: (any ApplicationDelegate)?

    /// The continuation waiting for an outcome, held weakly: dropping it cancels it.
    private weak var pendingContinuation: Continuation?

    /// Whether a continuation began and has no outcome yet.
    public var isContinuing: Bool { pendingContinuation != nil }

    /// Creates the application and makes it the center's application.
    public init(center: ActivityCenter = .shared) {
        self.center = center
        super.init()
        center.application = self
    }

    /// Starts continuing an activity of `activityType` that is on its way: the delegate's
    /// `willContinueUserActivityWithType` is called at once. Call ``Continuation/complete(with:)``
    /// or ``Continuation/fail(with:)`` on the result when the activity arrives or cannot.
    ///
    /// A continuation still pending fails with ``UserActivityError/cancelled``.
    public func beginContinuation(activityType: String) -> Continuation {
        pendingContinuation?.fail(with: UserActivityError.cancelled)
        let continuation = Continuation(activityType: activityType, application: self)
        pendingContinuation = continuation
        center.emit(.willContinue(activityType: activityType))
        continuation.appShowsProgress = delegate?.application(self, willContinueUserActivityWithType: activityType) ?? false
        return continuation
    }

    /// What the framework's own progress says while a continuation's activity is on its way.
    nonisolated public static let waitingMessage = "Getting it from your other device…"

    /// The activity of `continuation` is slow to arrive (the toolkit layer calls this half a
    /// second after it began, BatonGtk does): unless the app said it shows progress itself
    /// (its `willContinue…` returned true), or progress is shown already, the person is shown
    /// that it is on its way (``waitingMessage``), through the delegate's
    /// `didUpdateContinuationProgress` as any progress is, until the continuation ends.
    public func activityIsSlow(for continuation: Continuation) {
        guard !continuation.isFinished, !continuation.appShowsProgress, pendingContinuation === continuation,
              !isPresentingProgress else { return }
        self.continuation(continuation, didProgress: ContinuationProgress(activityType: continuation.activityType,
                                                                          message: Self.waitingMessage))
    }

    /// Starts delivering a saved activity of this app itself (state restoration at launch):
    /// as ``beginContinuation(activityType:)``, the delegate's `willContinue…` runs at once
    /// and the continuation ends in exactly one outcome, but it neither cancels a
    /// continuation that is pending (one from another device, say) nor takes its place.
    public func beginRestoration(activityType: String) -> Continuation {
        let continuation = Continuation(activityType: activityType, application: self, isRestoration: true)
        center.emit(.willContinue(activityType: activityType))
        _ = delegate?.application(self, willContinueUserActivityWithType: activityType)
        return continuation
    }

    /// Cancels the continuation under way, if any (the person gave up waiting): the delegate's
    /// `didFailToContinue…` gets ``UserActivityError/cancelled``.
    public func cancelContinuation() {
        pendingContinuation?.fail(with: UserActivityError.cancelled)
    }

    func continuationDidFinish(_ continuation: Continuation) {
        if pendingContinuation === continuation { pendingContinuation = nil }
        // The one showing progress ended (or, dropped without an outcome, is gone already).
        if isPresentingProgress, progressShown == nil || progressShown === continuation {
            isPresentingProgress = false
            progressShown = nil
            presentContinuationProgress(nil)
        }
    }

    /// Whether ``presentContinuationProgress(_:)`` shows progress, and whose: taken down
    /// when that continuation ends, not when another does (a window's restoration, say).
    private var isPresentingProgress = false
    private weak var progressShown: Continuation?
    /// The continuation reporting progress now, while its delegate call runs.
    private weak var progressReporter: Continuation?

    /// A continuation is held up: the trace records it and the delegate hears it (without
    /// one, it is shown).
    func continuation(_ continuation: Continuation, didProgress progress: ContinuationProgress) {
        center.emit(.progress(progress))
        progressReporter = continuation
        defer { progressReporter = nil }
        if let delegate {
            delegate.application(self, didUpdateContinuationProgress: progress)
        } else {
            showContinuationProgress(progress)
        }
    }

    /// Shows `progress` until its continuation ends: what a delegate without its own
    /// `didUpdateContinuationProgress` gets.
    func showContinuationProgress(_ progress: ContinuationProgress) {
        if let progressReporter { progressShown = progressReporter }
        isPresentingProgress = true
        presentContinuationProgress(progress)
    }

    /// Shows the person how a held-up continuation stands, replacing what was shown; `nil`
    /// takes it down (the continuation ended). The toolkit layer shows a window with the
    /// message and a progress bar (BatonGtk); the core shows nothing.
    open func presentContinuationProgress(_ progress: ContinuationProgress?) {}

    /// Hands the activity to the delegate's `continue…`.
    ///
    /// - Returns: `nil` once the delegate accepted it (returned true, or called the
    ///   restoration handler before returning), else the error that failed the continuation:
    ///   there is no delegate, or it returned false. Either way the trace records one of
    ///   `continued` or `failed`, at once.
    func deliver(_ activity: UserActivity, for continuation: Continuation,
                 whenRestored restored: (@MainActor () -> Void)?) -> UserActivityError? {
        continuationDidFinish(continuation)
        guard let delegate else {
            return reopenDocument(for: activity, whenRestored: restored, showsFailure: !continuation.isRestoration, declined:
                "the app has no delegate to continue \(activity.activityType): Application.delegate is weak, "
                    + "so keep a strong reference to the delegate you set")
        }
        let restoration = Restoration()
        let center = center
        let accepted = delegate.application(self, continue: activity) { objects in
            for object in objects {
                object.restoreUserActivityState(activity)
            }
            if restoration.state != .declined { self.didRestore(objects) }
            switch restoration.state {
            case .delegateRunning:
                restoration.state = .restoredEarly
            case .accepted:
                center.emit(.restored(activity))
                restored?()
            case .restoredEarly, .declined:
                break
            }
        }
        if !accepted && restoration.state == .delegateRunning {
            restoration.state = .declined
            return reopenDocument(for: activity, whenRestored: restored, showsFailure: !continuation.isRestoration, declined:
                "the app declined \(activity.activityType): its delegate's application(_:continue:restorationHandler:) returned false")
        }
        let restoredEarly = restoration.state == .restoredEarly
        restoration.state = .accepted
        center.emit(.continued(activity))
        if restoredEarly {
            center.emit(.restored(activity))
            restored?()
        }
        return nil
    }

    func deliverFailure(_ error: any Error, activityType: String, for continuation: Continuation) {
        continuationDidFinish(continuation)
        center.emit(.failed(activityType: activityType, error: error))
        if let delegate {
            delegate.application(self, didFailToContinueUserActivityWithType: activityType, error: error)
        } else {
            presentContinuationError(error)
        }
    }

    /// Shows the person an error that they should see: the toolkit layer shows a dialog (as
    /// AppKit's `presentError(_:)` does). The core shows nothing.
    open func presentError(_ error: any Error) {}

    /// Runs once the objects the delegate handed to the restoration handler have restored the
    /// activity. The toolkit layer brings a restored window to the front (BatonGtk); the core
    /// does nothing.
    open func didRestore(_ objects: [any UserActivityRestoring]) {}

    /// Presents why a continuation failed, unless it was cancelled: what a delegate without
    /// its own `didFailToContinue…` gets.
    func presentContinuationError(_ error: any Error) {
        if case .cancelled? = error as? UserActivityError { return }
        presentError(error)
    }
}

/// Where a delivered activity's restoration stands, shared by `deliver` and the handler it
/// gives the delegate, which may run inside `continue…` or later.
@MainActor
private final class Restoration {
    enum State {
        /// The delegate's `continue…` has not returned yet.
        case delegateRunning
        /// The handler ran before `continue…` returned: `restored` follows `continued`.
        case restoredEarly
        /// `continue…` returned true: the handler reports `restored` when it runs.
        case accepted
        /// `continue…` returned false without calling the handler: the continuation failed.
        case declined
    }

    var state = State.delegateRunning
}
