import CGLib

/// GLib sources that run a Swift closure on the default main context.
@MainActor
package enum GLibSources {
    private static let trampoline: GSourceFunc = { data in
        guard data != nil else { return baton_source_remove() }
        SignalHandler.run(data)
        return baton_source_continue()
    }

    /// The same for a source that runs once: it is removed after its first run.
    private static let trampolineOnce: GSourceFunc = { data in
        SignalHandler.run(data)
        return baton_source_remove()
    }

    private static let release: GDestroyNotify = { data in
        guard let data else { return }
        Unmanaged<SignalHandler>.fromOpaque(data).release()
    }

    /// Runs `body` every `seconds` seconds, at idle priority. Returns the source id.
    @discardableResult
    package static func every(seconds: UInt32, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return g_timeout_add_seconds_full(G_PRIORITY_DEFAULT_IDLE, seconds, trampoline, box, release)
    }

    /// Runs `body` every `milliseconds` milliseconds. Returns the source id.
    @discardableResult
    package static func every(milliseconds: UInt32, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, trampoline, box, release)
    }

    /// Runs `body` each time the process receives the Unix signal `signal`.
    @discardableResult
    package static func onUnixSignal(_ signal: Int32, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, trampoline, box, release)
    }

    /// Runs `body` once, `seconds` from now. Returns the source id, for ``cancel(_:)``.
    @discardableResult
    package static func once(after seconds: Double, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        let milliseconds = UInt32(max(0, min(seconds * 1000, Double(UInt32.max))))
        return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, trampolineOnce, box, release)
    }

    /// Runs `body` once, when the main loop has nothing more urgent to do: after pending
    /// redraws, layout and other idle work of default priority (`G_PRIORITY_LOW`). Returns
    /// the source id, for ``cancel(_:)``.
    @discardableResult
    package static func onceIdle(_ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return g_idle_add_full(G_PRIORITY_LOW, trampolineOnce, box, release)
    }

    /// Runs `body` once, when the descriptor `fd` is ready for `condition` (or hung up, or in
    /// error). Returns the source id, for ``cancel(_:)``.
    @discardableResult
    package static func once(when fd: Int32, is condition: GIOCondition, _ body: @escaping @MainActor () -> Void) -> guint {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        let watched = GIOCondition(condition.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        return g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, watched, { _, _, data in
            SignalHandler.run(data)
            return baton_source_remove()
        }, box, release)
    }

    /// Removes a source made by this enum before it runs again. Id 0 is ignored.
    package static func cancel(_ sourceID: guint) {
        // A one-shot source that ran is gone already: removing it again would be a GLib
        // critical warning. Ids only grow, so a gone one is not another's.
        guard sourceID != 0, let source = g_main_context_find_source_by_id(nil, sourceID), g_source_is_destroyed(source) == 0
        else { return }
        g_source_destroy(source)
    }
}

extension gboolean {
    /// The C truth value as a Swift `Bool`.
    package var isTrue: Bool { self != 0 }
}
