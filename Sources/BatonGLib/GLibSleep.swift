import CGLib
import Synchronization

extension GLibSources {
    /// Waits `seconds` on a timeout of the default main context, or until the task is
    /// cancelled, whichever comes first.
    ///
    /// Use it in place of `Task.sleep` in a program that runs the GLib main loop and installs
    /// ``GLibGlobalExecutor``: on Linux, `Task.sleep` waits on libdispatch's timers, whose
    /// manager thread starts libdispatch's pool monitor, which then wakes the process every
    /// second for good.
    package static func sleep(seconds: Double) async {
        let sleeper = GLibSleeper()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in sleeper.start(after: seconds, continuation) }
        } onCancel: {
            sleeper.wake()
        }
    }
}

/// One ``GLibSources/sleep(seconds:)``: its timeout and the continuation it resumes once,
/// from the timeout or from a cancellation on any thread.
private final class GLibSleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var source: guint = 0
        var woken = false
    }

    private let state = Mutex(State())

    func start(after seconds: Double, _ continuation: CheckedContinuation<Void, Never>) {
        let cancelledAlready = state.withLock { state in
            if !state.woken { state.continuation = continuation }
            return state.woken
        }
        if cancelledAlready { return continuation.resume() }
        let milliseconds = guint(max(0, min((seconds * 1000).rounded(.up), Double(guint.max))))
        let source = g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            if let data { Unmanaged<GLibSleeper>.fromOpaque(data).takeUnretainedValue().fired() }
            return baton_source_remove()
        }, Unmanaged.passRetained(self).toOpaque(), { data in
            if let data { Unmanaged<GLibSleeper>.fromOpaque(data).release() }
        })
        let removeNow = state.withLock { state in
            if !state.woken { state.source = source }
            return state.woken
        }
        if removeNow { g_source_remove(source) }
    }

    /// The timeout fired: its source ends itself.
    private func fired() {
        state.withLock { $0.source = 0 }
        wake()
    }

    /// Resumes the sleep now (once), removing its timeout if it is still to come.
    func wake() {
        let (continuation, source) = state.withLock { state in
            state.woken = true
            defer {
                state.continuation = nil
                state.source = 0
            }
            return (state.continuation, state.source)
        }
        if source != 0 { g_source_remove(source) }
        continuation?.resume()
    }
}
