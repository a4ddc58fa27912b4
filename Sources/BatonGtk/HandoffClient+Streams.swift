import Baton
import BatonBus
import BatonGLib

/// Continuation streams through the service: the continuing side asks batond
/// (`OpenContinuationStream`) with its continuation's token; the origin side receives its
/// end (`ReceiveContinuationStream`) and hands it to the activity's delegate.
extension HandoffClient {
    /// Asks batond for a stream to the origin of the continuation `token`. The call goes out
    /// before this returns, so it reaches batond ahead of the continuation's answer (the
    /// restoration handler), while the continuation is still live there.
    func openContinuationStream(token: String,
                                completion: @escaping @MainActor (Result<any ContinuationStream, UserActivityError>) -> Void) {
        guard let daemon else {
            return completion(.failure(.connectionUnavailable("the Baton service is not running")))
        }
        daemon.send(.openContinuationStream(token: token), timeout: Self.streamOpenTimeout) { result in
            switch result {
            case .success(let descriptor):
                guard let descriptor else {
                    return completion(.failure(.connectionUnavailable("the Baton service answered without a stream")))
                }
                completion(.success(SocketContinuationStream(taking: descriptor)))
            case .failure(let error):
                completion(.failure(ServiceError.userActivityError(from: error)))
            }
        }
    }

    /// Seconds to wait for batond to open a stream (the origin may be on another device).
    static let streamOpenTimeout = 20.0

    /// `ReceiveContinuationStream(s activity_id, h stream)`: the app continuing this app's
    /// activity opened a stream; the activity's delegate gets it. Without a delegate (it was
    /// released: the reference is weak) the call fails with `handoffFailed` (4608), "the
    /// origin does not answer streams", and the log says why.
    func receiveContinuationStream(_ id: String, _ call: BusMethodCall) {
        guard case .fileDescriptor(let handle)? = call.arguments.at(1), let descriptor = handle.take() else {
            call.fail(with: ServiceError.invalidArguments("expected (s, h)"), sendingRecord: true)
            return
        }
        let stream = SocketContinuationStream(taking: descriptor)
        guard let activity = activityIDs.activity(for: id), activity.isValid else {
            stream.close()
            call.fail(with: ServiceError.unknownActivity(id), sendingRecord: true)
            return
        }
        guard activity.supportsContinuationStreams else {
            stream.close()
            call.fail(with: UserActivityError.handoffFailed("\(activity.activityType) does not support continuation streams"),
                      sendingRecord: true)
            return
        }
        guard let delegate = activity.delegate else {
            // Said here, where the developer looks, and to the continuing app, which would
            // otherwise see its stream end at once.
            stream.close()
            logger.warning("a continuation stream for \(activity.activityType) arrived, but its activity has no delegate to take it: UserActivity.delegate is weak, so keep a strong reference to the delegate; the continuing app is told the origin does not answer streams")
            call.fail(with: UserActivityError.handoffFailed(
                "the origin does not answer streams: its \(activity.activityType) activity has no delegate (UserActivity.delegate is weak)"),
                      sendingRecord: true)
            return
        }
        call.reply()
        delegate.userActivity(activity, didReceive: stream)
    }
}

/// Opens the streams of one continuation the service delivered, naming it by its token.
@MainActor
final class ServiceStreamOpener: ContinuationStreamProvider {
    private let token: String
    private weak var client: HandoffClient?

    init(token: String, client: HandoffClient) {
        self.token = token
        self.client = client
    }

    func openContinuationStream(for activity: UserActivity,
                                completion: @escaping @MainActor (Result<any ContinuationStream, UserActivityError>) -> Void) {
        guard let client else { return completion(.failure(.connectionUnavailable("the app left the Baton service"))) }
        client.openContinuationStream(token: token, completion: completion)
    }
}
