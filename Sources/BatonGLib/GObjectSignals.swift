import CGLib

/// The Swift side of one GObject signal connection: a closure kept alive by GLib until the
/// handler is disconnected or the instance is finalized, when the `GClosureNotify` releases it.
package final class SignalHandler: Sendable {
    package let body: @MainActor () -> Void

    package init(_ body: @escaping @MainActor () -> Void) {
        self.body = body
    }

    /// Runs the handler a C trampoline was given as its user data, on the main thread that
    /// GLib calls it on.
    package static func run(_ data: gpointer?) {
        guard let data else { return }
        let handler = Unmanaged<SignalHandler>.fromOpaque(data).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body() }
    }
}

/// Connects Swift closures to GObject signals, for apps and for BatonGtk itself.
///
/// Two handler shapes are supported: ``connect(_:_:_:)`` for signals whose C handler is
/// `void (*)(GObject *instance, gpointer user_data)`, such as `GtkButton::clicked`,
/// `GtkEditable::changed`, `GtkWidget::destroy` and `GApplication::activate` (but not
/// `GSimpleAction::activate`, which has a parameter: check the signal's C signature first),
/// and ``onNotify(_:_:_:)`` for property changes. Only for objects that emit on the main
/// thread, as GTK widgets do. The closure lives until the handler is disconnected or the
/// instance is finalized; a connection that fails (an unknown signal) keeps nothing.
@MainActor
public enum GObjectSignals {
    /// Runs `body` each time `signal` is emitted on `instance`. Returns the handler id.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                        _ body: @escaping @MainActor () -> Void) -> gulong {
        let trampoline: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in SignalHandler.run(data) }
        return connect(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), body)
    }

    /// Connects `trampoline`, a C handler of the signal's shape that runs its user data
    /// (``SignalHandler/run(_:)``), with `body` as that user data.
    private static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ trampoline: GCallback,
                                _ body: @escaping @MainActor () -> Void) -> gulong {
        let box = Unmanaged.passRetained(SignalHandler(body)).toOpaque()
        return connected(baton_signal_connect(instance, signal, trampoline, box, releaseHandler), box)
    }

    /// Runs `body` each time `property` of `instance` changes (`notify::property`).
    @discardableResult
    public static func onNotify(_ instance: UnsafeMutableRawPointer, _ property: String,
                         _ body: @escaping @MainActor () -> Void) -> gulong {
        connectIgnoringArgument(instance, "notify::\(property)", body)
    }

    /// Runs `body` each time `signal` is emitted on `instance`, for signals whose C handler
    /// takes one pointer before the user data, which `body` does not need: `notify::` (a
    /// `GParamSpec*`) and `GSimpleAction::activate` (a `GVariant*` parameter).
    @discardableResult
    public static func connectIgnoringArgument(_ instance: UnsafeMutableRawPointer, _ signal: String,
                                        _ body: @escaping @MainActor () -> Void) -> gulong {
        let trampoline: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, _, data in SignalHandler.run(data) }
        return connect(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), body)
    }

    /// Runs `body` each time `GFileMonitor::changed` is emitted on `monitor` (its C handler
    /// takes two files and an event before the user data, which `body` does not need).
    @discardableResult
    public static func onFileMonitorChange(_ monitor: UnsafeMutableRawPointer,
                                           _ body: @escaping @MainActor () -> Void) -> gulong {
        let trampoline: @convention(c) (gpointer?, gpointer?, gpointer?, gint, gpointer?) -> Void = { _, _, _, _, data in
            SignalHandler.run(data)
        }
        return connect(monitor, "changed", unsafeBitCast(trampoline, to: GCallback.self), body)
    }

    /// Runs `body` with the signal's argument each time `signal` is emitted on `instance`,
    /// for signals whose C handler takes one `gint` before the user data, such as
    /// `GtkNativeDialog::response` and `GtkDialog::response`.
    @discardableResult
    public static func connectInt(_ instance: UnsafeMutableRawPointer, _ signal: String,
                                  _ body: @escaping @MainActor (Int32) -> Void) -> gulong {
        let box = Unmanaged.passRetained(IntSignalHandler(body)).toOpaque()
        let trampoline: @convention(c) (gpointer?, gint, gpointer?) -> Void = { _, value, data in
            guard let data else { return }
            let handler = Unmanaged<IntSignalHandler>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { handler.body(value) }
        }
        let id = baton_signal_connect(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), box, { data, _ in
            guard let data else { return }
            Unmanaged<IntSignalHandler>.fromOpaque(data).release()
        })
        if id == 0 { Unmanaged<IntSignalHandler>.fromOpaque(box).release() }
        return id
    }

    /// Releases the handler's box when GLib did not take it (handler id 0).
    private static func connected(_ handlerID: gulong, _ box: UnsafeMutableRawPointer) -> gulong {
        if handlerID == 0 { Unmanaged<SignalHandler>.fromOpaque(box).release() }
        return handlerID
    }

    private static let releaseHandler: GClosureNotify = { data, _ in
        guard let data else { return }
        Unmanaged<SignalHandler>.fromOpaque(data).release()
    }
}

/// The closure of a signal connected with ``GObjectSignals/connectInt(_:_:_:)``.
private final class IntSignalHandler: Sendable {
    let body: @MainActor (Int32) -> Void

    init(_ body: @escaping @MainActor (Int32) -> Void) {
        self.body = body
    }
}

/// Attaches a Swift object to a GObject under a key, held strongly until the GObject is
/// finalized (or the data is replaced), and finds it again.
package enum GObjectData {
    package static func attach(_ object: AnyObject, to instance: UnsafeMutableRawPointer, key: String) {
        let box = Unmanaged.passRetained(object).toOpaque()
        g_object_set_data_full(baton_object(instance), key, box) { data in
            guard let data else { return }
            Unmanaged<AnyObject>.fromOpaque(data).release()
        }
    }

    package static func attached<T: AnyObject>(_ type: T.Type, to instance: UnsafeMutableRawPointer, key: String) -> T? {
        guard let data = g_object_get_data(baton_object(instance), key) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? T
    }

    package static func detach(from instance: UnsafeMutableRawPointer, key: String) {
        g_object_set_data(baton_object(instance), key, nil)
    }
}
