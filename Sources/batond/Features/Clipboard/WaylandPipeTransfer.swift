import BatonGLib
import CGLib
import Glibc

/// Moves the clipboard's bytes through the pipes Wayland hands them over in, never blocking:
/// the main loop says when a pipe can be read or written, and an app that takes longer than
/// the timeout for the next step ends the transfer.
@MainActor
enum WaylandPipeTransfer {
    /// Everything written into the pipe `fd` until the app closes its end (`fd` is closed then).
    ///
    /// - Throws: ``ClipboardError/tooLarge(limit:)`` over `limit` bytes (read no further),
    ///   ``ClipboardError/timedOut`` when nothing comes for `timeout` seconds,
    ///   ``ClipboardError/changed`` when the pipe breaks.
    static func read(_ fd: Int32, limit: Int, timeout: Double) async throws -> [UInt8] {
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                guard bytes.count + count <= limit else { throw ClipboardError.tooLarge(limit: limit) }
                bytes += chunk[0..<count]
            } else if count == 0 {
                return bytes
            } else if errno == EAGAIN || errno == EINTR {
                guard await ready(fd, for: G_IO_IN, within: timeout) else { throw ClipboardError.timedOut }
            } else {
                throw ClipboardError.changed
            }
        }
    }

    /// Writes `bytes` into the pipe `fd`, then closes it; `false` when the app closed its end
    /// first or did not take more for `timeout` seconds.
    @discardableResult
    static func write(_ bytes: [UInt8], to fd: Int32, timeout: Double) async -> Bool {
        defer { _ = close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, min($0.count, 64 << 10)) }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EAGAIN || errno == EINTR {
                guard await ready(fd, for: G_IO_OUT, within: timeout) else { return false }
            } else {
                // EPIPE: the app closed its end (SIGPIPE is ignored, see WaylandClipboard).
                return false
            }
        }
        return true
    }

    /// Waits until `fd` is ready for `condition` (or hung up); `false` after `timeout` seconds.
    private static func ready(_ fd: Int32, for condition: GIOCondition, within timeout: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            let wait = Wait(continuation)
            wait.watch = GLibSources.once(when: fd, is: condition) { wait.end(true) }
            wait.timer = GLibSources.once(after: timeout) { wait.end(false) }
        }
    }

    /// A wait for a pipe: whichever of its two sources runs first ends it.
    @MainActor
    private final class Wait {
        var watch: guint = 0
        var timer: guint = 0
        private var continuation: CheckedContinuation<Bool, Never>?

        init(_ continuation: CheckedContinuation<Bool, Never>) {
            self.continuation = continuation
        }

        func end(_ ready: Bool) {
            GLibSources.cancel(ready ? timer : watch)
            continuation?.resume(returning: ready)
            continuation = nil
        }
    }
}
