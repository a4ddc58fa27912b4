import CGLib

/// One incoming D-Bus method call, answered exactly once: the first ``reply(_:)`` or
/// ``fail(name:message:details:)`` decides, later answers do nothing, and a call dropped without an
/// answer fails with `org.freedesktop.DBus.Error.Failed`, so a caller never waits forever.
@MainActor
public final class BusMethodCall {
    /// The unique bus name of the caller.
    public let sender: String
    /// The method's name.
    public let method: String
    /// The call's arguments, already checked by GDBus against the interface's signature;
    /// handles (`h`) come as ``BusFileDescriptor``s of their own, closed with the last
    /// reference unless taken.
    public let arguments: [BusValue]
    private var invocation: OpaquePointer?

    package init(sender: String, method: String, arguments: [BusValue], invocation: OpaquePointer) {
        self.sender = sender
        self.method = method
        self.arguments = arguments
        self.invocation = invocation
    }

    /// Whether the call was answered.
    public var isAnswered: Bool { invocation == nil }

    /// Answers with the method's out arguments. File descriptors among them go with the
    /// reply in a `GUnixFDList` (this side keeps its own, closed with their
    /// ``BusFileDescriptor``s). Values that cannot be sent (see ``BusValueError``) answer
    /// with `org.freedesktop.DBus.Error.Failed` saying why instead.
    public func reply(_ values: [BusValue] = []) {
        guard let invocation else { return }
        self.invocation = nil
        do {
            let body = try EncodedVariant(body: values, allowingFileDescriptors: true)
            withExtendedLifetime(body) {
                g_dbus_method_invocation_return_value_with_unix_fd_list(invocation, body.variant, body.fileDescriptors)
            }
        } catch {
            g_dbus_method_invocation_return_dbus_error(
                invocation, "org.freedesktop.DBus.Error.Failed", "the reply could not be sent: \(error)")
        }
    }

    /// Answers with a D-Bus error: `name`, `message`, and `details` (when there are any) as
    /// an `a{sv}` after the message, which D-Bus allows; a caller through ``BusConnection``
    /// reads them as ``BusError/details``. GDBus reads only a message alone, so a GDBus
    /// caller sees an error with details without its message: send them only to callers
    /// known to read them.
    public func fail(name: String, message: String, details: [String: BusValue] = [:]) {
        guard let invocation else { return }
        self.invocation = nil
        guard !details.isEmpty, let call = g_dbus_method_invocation_get_message(invocation),
              let body = try? EncodedVariant(body: [.string(message), .dictionary(details)], allowingFileDescriptors: false),
              let reply = g_dbus_message_new_method_error_literal(call, name, message) else {
            g_dbus_method_invocation_return_dbus_error(invocation, name, message)
            return
        }
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        withExtendedLifetime(body) { g_dbus_message_set_body(reply, body.variant) }
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_send_message(g_dbus_method_invocation_get_connection(invocation), reply,
                                          G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, &error) == 0 {
            g_clear_error(&error)
        }
        // The reply went out on its own: the invocation is done with.
        g_object_unref(UnsafeMutableRawPointer(invocation))
    }

    /// Answers with `org.freedesktop.DBus.Error.InvalidArgs`.
    public func failInvalidArguments(_ message: String) {
        fail(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    isolated deinit {
        fail(name: "org.freedesktop.DBus.Error.Failed", message: "the call was dropped without an answer")
    }
}

/// The Swift side of one exported object: the handler GDBus calls for each method call.
private final class ExportedObject {
    let handler: @MainActor (BusMethodCall) -> Void

    init(_ handler: @escaping @MainActor (BusMethodCall) -> Void) {
        self.handler = handler
    }
}

extension BusConnection {
    /// Exports an object at `path` implementing `interface`, described by the introspection
    /// document `introspectionXML`. GDBus answers unknown methods and calls with the wrong
    /// signature by itself, and calls whose arguments cannot be read (too deep, a handle
    /// without its descriptor) get `org.freedesktop.DBus.Error.InvalidArgs`; `handler` gets
    /// the others. Returns the registration id.
    ///
    /// - Throws: ``BusError/failed(_:)`` for bad XML, an unknown interface, or a path
    ///   already taken.
    @discardableResult
    public func export(path: String, interface: String, introspectionXML: String,
                       handler: @escaping @MainActor (BusMethodCall) -> Void) throws -> UInt32 {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(introspectionXML, &error) else {
            throw BusError(taking: error)
        }
        defer { g_dbus_node_info_unref(node) }
        guard let info = g_dbus_node_info_lookup_interface(node, interface) else {
            throw BusError.failed("the introspection document has no interface \(interface)")
        }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, sender, _, _, method, parameters, invocation, data in
            guard let data, let invocation else { return }
            let object = Unmanaged<ExportedObject>.fromOpaque(data).takeUnretainedValue()
            let senderName = sender.map { String(cString: $0) } ?? ""
            let methodName = method.map { String(cString: $0) } ?? ""
            MainActor.assumeIsolated {
                let arguments: [BusValue]
                do {
                    let message = g_dbus_method_invocation_get_message(invocation)
                    let fileDescriptors = message.flatMap { g_dbus_message_get_unix_fd_list($0) }
                    arguments = try parameters.map {
                        try BusConnection.arguments(of: $0, fileDescriptors: fileDescriptors)
                    } ?? []
                } catch {
                    g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.InvalidArgs", "unreadable arguments: \(error)")
                    return
                }
                object.handler(BusMethodCall(sender: senderName, method: methodName, arguments: arguments,
                                             invocation: invocation))
            }
        }
        let box = Unmanaged.passRetained(ExportedObject(handler)).toOpaque()
        let id = g_dbus_connection_register_object(raw, path, info, &vtable, box, { data in
            guard let data else { return }
            Unmanaged<ExportedObject>.fromOpaque(data).release()
        }, &error)
        guard id != 0 else { throw BusError(taking: error) }
        return id
    }

    /// Stops exporting an object.
    public func unexport(_ registrationID: UInt32) {
        _ = g_dbus_connection_unregister_object(raw, registrationID)
    }
}
