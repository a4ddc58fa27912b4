import Baton
import BatonBus
import BatonGLib
import Logging

/// A continuation the service started in this app, waiting for its activity.
@MainActor
final class PendingContinuation {
    let continuation: Continuation
    /// The timer that fails the continuation when the activity never comes.
    var timer: UInt32 = 0
    /// The timer that shows the framework's own progress when the activity is slow.
    var slowTimer: UInt32 = 0
    private let logger: Logger

    init(_ continuation: Continuation, logger: Logger) {
        self.continuation = continuation
        self.logger = logger
    }

    /// Fails the continuation (a no-op once it has an outcome).
    func finish(failing error: UserActivityError) {
        GLibSources.cancel(timer)
        timer = 0
        stopWaiting()
        continuation.fail(with: error)
    }

    /// Delivers the activity and answers `call` once the restoration handler ran, or with
    /// the error that failed the continuation instead.
    func deliver(_ activity: UserActivity, answering call: BusMethodCall) {
        GLibSources.cancel(timer)
        timer = 0
        stopWaiting()
        guard !continuation.isFinished else {
            call.fail(with: UserActivityError.cancelled, sendingRecord: true)
            return
        }
        let delivered = continuation.complete(with: activity) { [weak self] in
            self?.cancelTimer()
            if !call.isAnswered { call.reply() }
        }
        guard delivered else {
            let error = continuation.error.map(ServiceError.userActivityError(from:))
                ?? .handoffFailed("the app did not accept the activity")
            logger.warning("the continuation of \(activity.activityType) failed: \(error)")
            call.fail(with: error, sendingRecord: true)
            return
        }
        guard !call.isAnswered else { return }
        timer = GLibSources.once(after: Self.restorationWait) { [self] in
            timer = 0
            if !call.isAnswered {
                call.fail(with: UserActivityError.remoteApplicationTimedOut("the app never restored the activity"), sendingRecord: true)
            }
        }
    }

    /// How long an activity may take to arrive before the framework shows that it is on its
    /// way, in seconds.
    static let slowAfter: Double = 0.5

    /// Shows the framework's progress (``Application/activityIsSlow(for:)``) if the activity
    /// has not arrived within ``slowAfter``.
    func watchForSlowness(in application: Application) {
        slowTimer = GLibSources.once(after: Self.slowAfter) { [weak self, weak application] in
            guard let self else { return }
            slowTimer = 0
            application?.activityIsSlow(for: continuation)
        }
    }

    private func stopWaiting() {
        GLibSources.cancel(slowTimer)
        slowTimer = 0
    }

    /// How long to wait for the restoration handler after delivery, in seconds.
    static let restorationWait: Double = 120

    private func cancelTimer() {
        GLibSources.cancel(timer)
        timer = 0
    }
}
