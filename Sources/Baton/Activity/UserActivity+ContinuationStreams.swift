/// Continuation streams, on the continuing side (Apple's
/// `getContinuationStreamsWithCompletionHandler:`).
extension UserActivity {
    /// Opens a stream to the app this activity came from, for data too large for
    /// `userInfo`; `completionHandler` runs once, on the main actor, with the stream or the
    /// error.
    ///
    /// Only an activity handed to `continue…restorationHandler:` whose origin set
    /// ``supportsContinuationStreams`` can open one; call it there, before the restoration
    /// handler. Anything else fails with ``UserActivityError/handoffFailed(_:)`` saying why.
    /// A stream that cannot be opened fails with ``UserActivityError/connectionUnavailable(_:)``
    /// (4609) or ``UserActivityError/remoteApplicationTimedOut(_:)`` (4610).
    public func getContinuationStreams(
        completionHandler: @escaping @MainActor (ContinuationStream?, (any Error)?) -> Void) {
        guard let provider = continuationStreamProvider else {
            return completionHandler(nil, UserActivityError.handoffFailed(
                "\(activityType) is not being continued here: only the activity handed to continue…restorationHandler: can open continuation streams"))
        }
        guard supportsContinuationStreams else {
            return completionHandler(nil, UserActivityError.handoffFailed(
                "the app \(activityType) came from did not set supportsContinuationStreams"))
        }
        provider.openContinuationStream(for: self) { result in
            switch result {
            case .success(let stream): completionHandler(stream, nil)
            case .failure(let error): completionHandler(nil, error)
            }
        }
    }

    /// Opens a stream to the app this activity came from, as
    /// ``getContinuationStreams(completionHandler:)`` does.
    ///
    /// - Throws: ``UserActivityError``.
    public func continuationStreams() async throws -> ContinuationStream {
        try await withCheckedThrowingContinuation { continuation in
            getContinuationStreams { stream, error in
                if let stream {
                    continuation.resume(returning: stream)
                } else {
                    continuation.resume(throwing: error ?? UserActivityError.connectionUnavailable("no stream"))
                }
            }
        }
    }
}
