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
        _ = delegate?.application(self, willContinueUserActivityWithType: activityType)
        return continuation
    }

    func continuationDidFinish(_ continuation: Continuation) {
        if pendingContinuation === continuation { pendingContinuation = nil }
    }

    func deliver(_ activity: UserActivity, for continuation: Continuation, whenRestored restored: (@MainActor () -> Void)?) {
        continuationDidFinish(continuation)
        center.emit(.continued(activity))
        let center = center
        _ = delegate?.application(self, continue: activity) { objects in
            for object in objects {
                object.restoreUserActivityState(activity)
            }
            center.emit(.restored(activity))
            restored?()
        }
    }

    func deliverFailure(_ error: any Error, activityType: String, for continuation: Continuation) {
        continuationDidFinish(continuation)
        center.emit(.failed(activityType: activityType, error: error))
        delegate?.application(self, didFailToContinueUserActivityWithType: activityType, error: error)
    }
}
