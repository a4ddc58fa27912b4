import Baton
import CGLib
import Foundation

/// A continuation stream on a socket: the end batond hands an app (a Unix socket whose other
/// end is the other app's, or batond's when the other app is on another device).
///
/// Reads and writes are non-blocking and wait on the default main context (a GLib watch
/// on the descriptor), so a GTK app's main loop runs on while they wait. A read or write
/// that makes no progress for ``timeout`` seconds throws 4610, so a stream whose other end
/// stopped reading or writing ends instead of hanging.
@MainActor
public final class SocketContinuationStream: ContinuationStream {
    /// The socket, until ``close()``: -1 after.
    public private(set) var fileDescriptor: Int32
    /// Seconds a read or write may wait without progress.
    public var timeout: Double
    /// Seconds a read may wait, when not ``timeout``: a relay waits as long as its app takes
    /// to answer, and leaves the timeouts to the apps.
    public var readTimeout: Double?
    private var readWait: Wait?
    private var writeWait: Wait?

    /// The default ``timeout``.
    public static let defaultTimeout = 30.0
    /// The most bytes one read returns.
    public static let maximumReadCount = 256 << 10

    /// Takes `descriptor`, a connected stream socket, which the stream closes.
    public init(taking descriptor: Int32, timeout: Double = defaultTimeout) {
        fileDescriptor = descriptor
        self.timeout = timeout
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    public func read(maximumCount: Int) async throws -> [UInt8] {
        let count = max(1, min(maximumCount, Self.maximumReadCount))
        while true {
            guard fileDescriptor >= 0 else { throw UserActivityError.connectionUnavailable("the stream is closed") }
            let descriptor = fileDescriptor
            var failure: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                let received = recv(descriptor, buffer.baseAddress, count, 0)
                initialized = max(0, received)
                if received < 0 { failure = errno }
            }
            if failure == 0 { return bytes }
            guard failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR else {
                throw Self.error(failure, reading: true)
            }
            try await wait(for: G_IO_IN, reading: true)
        }
    }

    public func write(_ bytes: [UInt8]) async throws {
        var written = 0
        while written < bytes.count {
            let sent = try writeAvailable(bytes, from: written)
            if sent > 0 {
                written += sent
            } else {
                try await wait(for: G_IO_OUT, reading: false)
            }
        }
    }

    /// Writes what the socket takes now of `bytes` from `offset` on, without waiting: the
    /// count written, 0 when the socket is full. For a writer on the main loop that queues
    /// the rest itself.
    ///
    /// - Throws: `UserActivityError.connectionUnavailable` when the stream is closed,
    ///   or the other end is.
    public func writeAvailable(_ bytes: [UInt8], from offset: Int = 0) throws -> Int {
        guard fileDescriptor >= 0 else { throw UserActivityError.connectionUnavailable("the stream is closed") }
        guard offset < bytes.count else { return 0 }
        let sent = bytes.withUnsafeBytes { buffer in
            send(fileDescriptor, buffer.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
        }
        if sent >= 0 { return sent }
        let failure = errno
        guard failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR else {
            throw Self.error(failure, reading: false)
        }
        return 0
    }

    public func closeWrite() {
        guard fileDescriptor >= 0 else { return }
        _ = shutdown(fileDescriptor, Int32(SHUT_WR))
    }

    public func close() {
        guard fileDescriptor >= 0 else { return }
        let descriptor = fileDescriptor
        fileDescriptor = -1
        readWait?.finish(.failure(.connectionUnavailable("the stream was closed")))
        writeWait?.finish(.failure(.connectionUnavailable("the stream was closed")))
        _ = Glibc.close(descriptor)
    }

    isolated deinit {
        close()
    }

    /// Waits until the socket is ready for `condition`, or ``timeout`` passes.
    private func wait(for condition: GIOCondition, reading: Bool) async throws {
        guard (reading ? readWait : writeWait) == nil else {
            throw UserActivityError.handoffFailed("another \(reading ? "read" : "write") of this stream is waiting: one at a time")
        }
        let fd = fileDescriptor
        let seconds = reading ? readTimeout ?? timeout : timeout
        let result: Result<Void, UserActivityError> = await withCheckedContinuation { continuation in
            let wait = Wait(continuation)
            if reading { readWait = wait } else { writeWait = wait }
            wait.watch = GLibSources.once(when: fd, is: condition) { [weak wait] in
                wait?.watch = 0
                wait?.finish(.success(()))
            }
            wait.timer = GLibSources.once(after: seconds) { [weak wait] in
                wait?.timer = 0
                wait?.finish(.failure(.remoteApplicationTimedOut(
                    "the other end \(reading ? "sent nothing" : "took nothing") within \(Int(seconds)) s")))
            }
        }
        if reading { readWait = nil } else { writeWait = nil }
        try result.get()
    }

    private static func error(_ code: Int32, reading: Bool) -> UserActivityError {
        switch code {
        case EPIPE, ECONNRESET:
            return .connectionUnavailable("the other end closed the stream")
        default:
            return .connectionUnavailable("\(reading ? "reading" : "writing") the stream failed: \(String(cString: strerror(code)))")
        }
    }
}

/// One read or write waiting for the socket: its watch, its timer, and the caller.
@MainActor
private final class Wait {
    var watch: guint = 0
    var timer: guint = 0
    private var continuation: CheckedContinuation<Result<Void, UserActivityError>, Never>?

    init(_ continuation: CheckedContinuation<Result<Void, UserActivityError>, Never>) {
        self.continuation = continuation
    }

    func finish(_ result: Result<Void, UserActivityError>) {
        GLibSources.cancel(watch)
        GLibSources.cancel(timer)
        watch = 0
        timer = 0
        continuation?.resume(returning: result)
        continuation = nil
    }
}
