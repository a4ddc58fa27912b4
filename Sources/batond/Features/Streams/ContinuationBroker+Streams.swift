import Baton
import BatonBus
import BatonGLib
import CGLib
import Foundation

/// A continuation whose activity is with its app now.
struct LiveContinuation {
    /// The app continuing it: the only one that may open its streams.
    let target: RegisteredApp
    let source: ActivitySource
    /// Whether the origin set `supportsContinuationStreams` (the payload's header says).
    let supportsStreams: Bool
}

/// Continuation streams: the continuing app asks (`OpenContinuationStream`) while its
/// continuation is live; batond makes a socket pair and hands one end to each app, the
/// origin's with `ReceiveContinuationStream`, and is out of the data path. For an activity
/// from another device, the origin's end goes to the network (``ContinuationBrokerDelegate``).
extension ContinuationBroker {
    /// Checks at once, as the call arrives, that `caller` may open a stream for the
    /// continuation `token`; the returned work opens it.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` with `handoffFailed` when the continuation is
    ///   not live, is another app's, or its origin did not set `supportsContinuationStreams`,
    ///   and `connectionUnavailable` when no app is there to answer.
    func streamOpener(token: String, caller: String) throws -> @MainActor () async throws -> BusFileDescriptor {
        guard let live = liveContinuations[token] else {
            throw ServiceError.activity(.handoffFailed(
                "no continuation \(Excerpt.of(token)) is under way: streams open only inside continue…, before the restoration handler"))
        }
        guard live.target.busName == caller else {
            throw ServiceError.activity(.handoffFailed("only the app continuing the activity opens its streams"))
        }
        guard live.supportsStreams else {
            throw ServiceError.activity(.handoffFailed(
                "the app \(live.source.activityType) came from did not set supportsContinuationStreams"))
        }
        switch live.source {
        case .local(let origin, let published):
            return { [self] in
                try await handStream(to: origin, activityID: published.appActivityID, for: live.target.appID)
            }
        case .offer(let offer):
            guard case .peer(let deviceID) = offer.origin, let delegate else {
                throw ServiceError.activity(.connectionUnavailable(
                    "the activity was given to batond (baton offer), not sent by an app: there is no app to stream from"))
            }
            return {
                let (ours, theirs) = try Self.socketPair()
                try await delegate.openStream(theirs, to: offer, from: deviceID)
                return ours
            }
        case .payload:
            throw ServiceError.activity(.connectionUnavailable(
                "the activity was given to batond (ContinuePayload), not sent by an app: there is no app to stream from"))
        }
    }

    /// Makes a socket pair and gives one end to `origin` for its activity; returns the other,
    /// for the app continuing it (`continuing`, named in the log), or the relay to its device.
    func handStream(to origin: RegisteredApp, activityID: String, for continuing: String) async throws -> BusFileDescriptor {
        let (ours, theirs) = try Self.socketPair()
        do {
            _ = try await callApp(origin.busName, "ReceiveContinuationStream",
                                  [.string(activityID), .fileDescriptor(theirs)], timeout: timeouts.call)
        } catch {
            // The origin answered, refusing it (its activity has no delegate, say): 4608 with its
            // reason, not "could not be reached".
            if let error = error as? BusError, error.remoteName == "org.baton.Error.HandoffFailed",
               case .handoffFailed(let reason) = ServiceError.userActivityError(from: error) {
                logger.notice("\(origin.appID) refused a continuation stream for \(continuing): \(reason)")
                throw ServiceError.activity(.handoffFailed("\(origin.appID) did not take the stream: \(reason)"))
            }
            throw ServiceError.activity(.connectionUnavailable(
                "\(origin.appID) did not take the stream: \(Self.reason(of: error))"))
        }
        theirs.close()
        logger.info("continuation stream opened from \(continuing) to \(origin.appID)")
        return ours
    }

    /// What an origin app that refuses a stream (its activity has no delegate) says: the
    /// continuing device's batond reads it in the reason a `streamClose` gives, and reports
    /// `handoffFailed` (4608) rather than `connectionUnavailable`.
    static let noStreamAnswer = "the origin does not answer streams"

    /// Two connected Unix stream sockets, close-on-exec.
    static func socketPair() throws -> (BusFileDescriptor, BusFileDescriptor) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ServiceError.activity(.connectionUnavailable("no socket pair: \(String(cString: strerror(errno)))"))
        }
        for descriptor in pair {
            var size = Int32(streamSocketBuffer)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        return (BusFileDescriptor(taking: pair[0]), BusFileDescriptor(taking: pair[1]))
    }

    /// Each end's send buffer: enough for the apps and the relay to move bulk data in long
    /// runs rather than a wake-up per 200 KiB (the default); the kernel caps it at
    /// `net.core.wmem_max`.
    static let streamSocketBuffer = 1 << 20

    private static func reason(of error: any Error) -> String {
        (error as? BusError).map { $0.remoteName == nil ? $0.description : $0.message } ?? "\(error)"
    }
}
