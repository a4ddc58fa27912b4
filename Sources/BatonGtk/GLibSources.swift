import CBatonGtk
import CGtk

/// Repeating GLib sources that run a Swift closure on the default main context.
@MainActor
enum GLibSources {
    private static let trampoline: GSourceFunc = { data in
        guard let data else { return baton_source_remove() }
        let handler = Unmanaged<SignalHandler>.fromOpaque(data).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body() }
        return baton_source_continue()
    }

    private static let release: GDestroyNotify = { data in
        guard let data else { return }
        Unmanaged<SignalHandler>.fromOpaque(data).release()
    }

    /// Runs `body` every `seconds` seconds, at idle priority. Returns the source id.
    @discardableResult
    static func every(seconds: UInt32, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return g_timeout_add_seconds_full(G_PRIORITY_DEFAULT_IDLE, seconds, trampoline, box, release)
    }

    /// Runs `body` each time the process receives the Unix signal `signal`.
    @discardableResult
    static func onUnixSignal(_ signal: Int32, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, trampoline, box, release)
    }
}
