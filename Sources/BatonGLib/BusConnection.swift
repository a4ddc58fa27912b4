import CGLib

/// A connection to a D-Bus message bus (GDBus), with calls, signals and names as Swift
/// closures and `async` functions.
///
/// Callbacks run on the GLib default main context, on the main thread: run a GLib main loop
/// and install ``MainQueueBridge`` so `async` calls resume.
@MainActor
public final class BusConnection {
    /// The `GDBusConnection`.
    package let raw: OpaquePointer

    package init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`).
    ///
    /// - Throws: ``BusError/failed(_:)`` when there is no session bus.
    public static func session() throws -> BusConnection {
        try connect(G_BUS_TYPE_SESSION)
    }

    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket): where
    /// avahi-daemon and other system services live.
    ///
    /// - Throws: ``BusError/failed(_:)`` when there is no system bus.
    public static func system() throws -> BusConnection {
        try connect(G_BUS_TYPE_SYSTEM)
    }

    /// The message bus at `address` (a D-Bus address such as `unix:path=/run/bus`): for
    /// tools that talk to several buses at once.
    ///
    /// - Throws: ``BusError/failed(_:)`` when it cannot be reached.
    public static func bus(at address: String) throws -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let raw = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw BusError(taking: error)
        }
        g_dbus_connection_set_exit_on_close(raw, 0)
        return BusConnection(taking: raw)
    }

    private static func connect(_ type: GBusType) throws -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        guard let raw = g_bus_get_sync(type, nil, &error) else {
            throw BusError(taking: error)
        }
        g_dbus_connection_set_exit_on_close(raw, 0)
        return BusConnection(taking: raw)
    }

    /// This connection's unique name on the bus, such as `:1.42`.
    public var uniqueName: String {
        g_dbus_connection_get_unique_name(raw).map { String(cString: $0) } ?? ""
    }

    /// Whether the connection is closed (the bus went away).
    public var isClosed: Bool { g_dbus_connection_is_closed(raw) != 0 }

    /// A message body of `arguments`.
    ///
    /// - Throws: ``BusError/failed(_:)`` naming the ``BusValueError``.
    nonisolated static func body(_ arguments: [BusValue], allowingFileDescriptors: Bool) throws -> EncodedVariant {
        do {
            return try EncodedVariant(body: arguments, allowingFileDescriptors: allowingFileDescriptors)
        } catch {
            throw BusError.failed("\(error)")
        }
    }

    /// Emits a signal from this connection, if it can: like a failure to send, arguments
    /// that cannot be encoded (see ``BusValueError``; file descriptors included, which
    /// travel only in method calls and replies) leave the signal unsent.
    public func emitSignal(path: String, interface: String, name: String, arguments: [BusValue] = [],
                           destination: String? = nil) {
        guard let body = try? Self.body(arguments, allowingFileDescriptors: false) else { return }
        var error: UnsafeMutablePointer<GError>?
        if withExtendedLifetime(body, {
            g_dbus_connection_emit_signal(raw, destination, path, interface, name, body.variant, &error)
        }) == 0 {
            g_clear_error(&error)
        }
    }

    /// Runs `handler` with the sender and arguments of each matching signal. Returns an id
    /// for ``unsubscribe(_:)``. Signals whose arguments cannot be read (handles to file
    /// descriptors among them: signals carry none here) are not passed on.
    @discardableResult
    public func subscribe(sender: String?, interface: String?, member: String?, path: String?,
                          handler: @escaping @MainActor (_ sender: String, _ arguments: [BusValue]) -> Void) -> UInt32 {
        subscribeWithPath(sender: sender, interface: interface, member: member, path: path) { sender, _, arguments in
            handler(sender, arguments)
        }
    }

    /// As ``subscribe(sender:interface:member:path:handler:)``, with the object path each
    /// signal came from: for signals of objects under one path, such as one per device.
    @discardableResult
    public func subscribeWithPath(sender: String?, interface: String?, member: String?, path: String?,
                                  handler: @escaping @MainActor (_ sender: String, _ path: String,
                                                                 _ arguments: [BusValue]) -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(SignalSubscription(handler)).toOpaque()
        return g_dbus_connection_signal_subscribe(
            raw, sender, interface, member, path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, path, _, _, parameters, data in
                guard let data, let parameters else { return }
                let subscription = Unmanaged<SignalSubscription>.fromOpaque(data).takeUnretainedValue()
                guard let arguments = try? BusConnection.arguments(of: parameters) else { return }
                let senderName = sender.map { String(cString: $0) } ?? ""
                let pathName = path.map { String(cString: $0) } ?? ""
                MainActor.assumeIsolated { subscription.handler(senderName, pathName, arguments) }
            }, box, { data in
                guard let data else { return }
                Unmanaged<SignalSubscription>.fromOpaque(data).release()
            })
    }

    /// Stops a subscription made by ``subscribe(sender:interface:member:path:handler:)``.
    public func unsubscribe(_ id: UInt32) {
        g_dbus_connection_signal_unsubscribe(raw, id)
    }

    /// The arguments of a message body (a tuple variant), handles resolved in the message's
    /// `fileDescriptors`.
    ///
    /// - Throws: ``UnsupportedVariantType`` or ``BusValueError``.
    package nonisolated static func arguments(of tuple: OpaquePointer,
                                              fileDescriptors: UnsafeMutablePointer<GUnixFDList>? = nil)
        throws -> [BusValue] {
        try BusValue.members(ofBody: tuple, fileDescriptors: fileDescriptors)
    }

    nonisolated static func milliseconds(_ seconds: Double) -> Int32 {
        Int32(max(1, min(seconds * 1000, Double(Int32.max))))
    }
}

private final class SignalSubscription {
    let handler: @MainActor (String, String, [BusValue]) -> Void

    init(_ handler: @escaping @MainActor (String, String, [BusValue]) -> Void) {
        self.handler = handler
    }
}
