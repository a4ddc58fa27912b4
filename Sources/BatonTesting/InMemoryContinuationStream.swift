import Baton

/// A continuation stream held in memory, one end of a pair (``makePair()``): bytes written
/// on one end are read on the other, with no socket and no main loop. For tests of the core
/// and of app code that uses streams, like swift-nio's `NIOEmbedded`.
@MainActor
public final class InMemoryContinuationStream: ContinuationStream {
    /// The other end.
    public private(set) weak var peer: InMemoryContinuationStream?
    private var incoming: [UInt8] = []
    private var incomingEnded = false
    private var waitingRead: (count: Int, continuation: CheckedContinuation<[UInt8], any Error>)?
    /// Whether ``closeWrite()`` or ``close()`` was called.
    public private(set) var isWriteClosed = false
    /// Whether ``close()`` was called.
    public private(set) var isClosed = false

    /// Two ends of one stream: the continuing app's and the origin's.
    public static func makePair() -> (InMemoryContinuationStream, InMemoryContinuationStream) {
        let first = InMemoryContinuationStream()
        let second = InMemoryContinuationStream()
        first.peer = second
        second.peer = first
        return (first, second)
    }

    /// No descriptor: the stream lives in memory.
    public var fileDescriptor: Int32 { -1 }

    public func read(maximumCount: Int) async throws -> [UInt8] {
        guard !isClosed else { throw UserActivityError.connectionUnavailable("the stream is closed") }
        if !incoming.isEmpty || incomingEnded { return take(maximumCount) }
        return try await withCheckedThrowingContinuation { continuation in
            waitingRead = (maximumCount, continuation)
        }
    }

    public func write(_ bytes: [UInt8]) async throws {
        guard !isWriteClosed else { throw UserActivityError.connectionUnavailable("the stream's write half is closed") }
        guard let peer, !peer.isClosed else {
            throw UserActivityError.connectionUnavailable("the other end closed the stream")
        }
        peer.receive(bytes)
    }

    public func closeWrite() {
        guard !isWriteClosed else { return }
        isWriteClosed = true
        peer?.receiveEnd()
    }

    public func close() {
        guard !isClosed else { return }
        closeWrite()
        isClosed = true
        if let waiting = waitingRead {
            waitingRead = nil
            waiting.continuation.resume(throwing: UserActivityError.connectionUnavailable("the stream is closed"))
        }
    }

    private func receive(_ bytes: [UInt8]) {
        incoming += bytes
        wakeReader()
    }

    private func receiveEnd() {
        incomingEnded = true
        wakeReader()
    }

    private func wakeReader() {
        guard let waiting = waitingRead, !incoming.isEmpty || incomingEnded else { return }
        waitingRead = nil
        waiting.continuation.resume(returning: take(waiting.count))
    }

    private func take(_ count: Int) -> [UInt8] {
        let chunk = Array(incoming.prefix(max(1, count)))
        incoming.removeFirst(chunk.count)
        return chunk
    }
}

/// Opens in-memory continuation streams: each open makes a pair, returns one end to the
/// continuing activity and hands the other to ``onOpen`` (the origin's side), or fails with
/// ``failure`` when set.
@MainActor
public final class InMemoryStreamProvider: ContinuationStreamProvider {
    /// Receives the origin's end of each stream opened.
    public var onOpen: (InMemoryContinuationStream) -> Void = { $0.close() }
    /// When set, every open fails with it.
    public var failure: UserActivityError?
    /// How many streams were asked for.
    public private(set) var openCount = 0

    public init() {}

    public func openContinuationStream(for activity: UserActivity,
                                       completion: @escaping @MainActor (Result<any ContinuationStream, UserActivityError>) -> Void) {
        openCount += 1
        if let failure { return completion(.failure(failure)) }
        let (continuing, origin) = InMemoryContinuationStream.makePair()
        onOpen(origin)
        completion(.success(continuing))
    }
}
