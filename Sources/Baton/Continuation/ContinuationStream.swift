/// A duplex byte stream between the app continuing an activity and the app it came from:
/// Baton's continuation streams (Apple's `getContinuationStreams`), for what is too large for
/// `userInfo`.
///
/// The continuing app gets one from ``UserActivity/continuationStreams()`` inside
/// `continue…restorationHandler:`; the origin app gets the other end in
/// ``UserActivityDelegate/userActivity(_:didReceive:)``. Bytes written on one end are read on
/// the other, in order. The usual shape is a request and a response: the continuing side
/// writes its request and closes its write half; the origin reads to the end, answers, and
/// closes.
///
/// Every call runs on the main actor and never blocks it: reads and writes wait on the main
/// loop. An app that does its own I/O can take ``fileDescriptor`` (a non-blocking stream
/// socket) instead; see the DocC article on continuation streams for a GLib watch.
@MainActor
public protocol ContinuationStream: AnyObject, Sendable {
    /// The stream's socket: a non-blocking `SOCK_STREAM` descriptor the stream owns and
    /// closes in ``close()``. Use either it or the methods, not both.
    var fileDescriptor: Int32 { get }

    /// Reads up to `maximumCount` bytes, waiting until at least one arrives; an empty array
    /// is the end of the stream (the other end closed its write half, or closed).
    ///
    /// - Throws: ``UserActivityError/remoteApplicationTimedOut(_:)`` when nothing arrives
    ///   within the stream's timeout, ``UserActivityError/connectionUnavailable(_:)`` when
    ///   the stream failed or was closed here.
    func read(maximumCount: Int) async throws -> [UInt8]

    /// Writes all of `bytes`, waiting while the other end is behind.
    ///
    /// - Throws: ``UserActivityError/remoteApplicationTimedOut(_:)`` when the other end
    ///   takes nothing within the stream's timeout, ``UserActivityError/connectionUnavailable(_:)``
    ///   when the other end closed or the stream failed.
    func write(_ bytes: [UInt8]) async throws

    /// Closes the write half: the other end reads the end of the stream once it has read
    /// what was written. Reading goes on.
    func closeWrite()

    /// Closes both halves and the descriptor; waiting reads and writes throw. Calling it
    /// again does nothing.
    func close()
}

extension ContinuationStream {
    /// Reads until the end of the stream, refusing more than `limit` bytes.
    ///
    /// - Throws: what ``read(maximumCount:)`` throws, or
    ///   ``UserActivityError/handoffFailed(_:)`` when more than `limit` bytes arrive.
    public func readToEnd(limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try await read(maximumCount: 64 << 10)
            if chunk.isEmpty { return bytes }
            guard bytes.count + chunk.count <= limit else {
                throw UserActivityError.handoffFailed("the continuation stream sent more than \(limit) bytes")
            }
            bytes += chunk
        }
    }
}

/// What opens continuation streams for an activity being continued: BatonGtk's link to the
/// service, or a test double. The framework hands it to the activity it delivers
/// (``Continuation/streamProvider``); apps do not call it themselves.
@MainActor
public protocol ContinuationStreamProvider: AnyObject {
    /// Opens a stream to the app that `activity` came from, and calls `completion` once with
    /// the stream or the reason there is none.
    func openContinuationStream(for activity: UserActivity,
                                completion: @escaping @MainActor (Result<any ContinuationStream, UserActivityError>) -> Void)
}
