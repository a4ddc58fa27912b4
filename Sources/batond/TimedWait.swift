import BatonGLib

/// Waits for a callback-style result with a deadline, on the GLib main loop.
@MainActor
enum TimedWait {
    /// Calls `start` with a function that delivers the result, and returns the first result
    /// delivered, or `nil` when `timeout` seconds pass first. Later deliveries are ignored.
    static func value<T: Sendable>(timeout: Double, _ start: (@escaping @MainActor (T) -> Void) -> Void) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let outcome = Outcome(continuation)
            outcome.timer = GLibSources.once(after: timeout) {
                outcome.timer = 0
                outcome.finish(nil)
            }
            start { outcome.finish($0) }
        }
    }

    /// One pending wait: finished once, by a value or by its timer.
    @MainActor
    private final class Outcome<T: Sendable> {
        private var continuation: CheckedContinuation<T?, Never>?
        var timer: UInt32 = 0

        init(_ continuation: CheckedContinuation<T?, Never>) {
            self.continuation = continuation
        }

        func finish(_ value: T?) {
            guard let continuation else { return }
            self.continuation = nil
            GLibSources.cancel(timer)
            continuation.resume(returning: value)
        }
    }
}
