import CGLib

/// Method calls: the call goes out as a `GDBusMessage` and the whole reply comes back, so an
/// error reply's details (the `a{sv}` after its message, see ``BusMethodCall/fail(name:message:details:)``)
/// reach the caller in ``BusError/remote(name:message:details:)``.
extension BusConnection {
    /// Calls `method` and waits for its reply, without blocking the main loop. File
    /// descriptors among the arguments go with the call in a `GUnixFDList`, and those in the
    /// reply come back as ``BusFileDescriptor``s of their own.
    ///
    /// - Parameters:
    ///   - autoStart: whether the bus may start the destination through D-Bus activation.
    ///   - timeout: seconds to wait for the reply.
    /// - Throws: ``BusError``; ``BusError/failed(_:)`` when the arguments cannot be sent
    ///   (see ``BusValueError``) or the reply cannot be read.
    public func call(_ destination: String, path: String, interface: String, method: String,
                     arguments: [BusValue] = [], autoStart: Bool = false, timeout: Double = 25) async throws -> [BusValue] {
        let message = try Self.methodCall(destination, path: path, interface: interface, method: method,
                                          arguments: arguments, autoStart: autoStart)
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[BusValue], any Error>) in
            send(message, timeout: timeout) { continuation.resume(with: $0) }
        }
    }

    /// Calls `method` as ``call(_:path:interface:method:arguments:autoStart:timeout:)`` does,
    /// but sends it before returning and calls `completion` with the reply: for a call that
    /// must go out ahead of what the caller does next on the same connection.
    public func call(_ destination: String, path: String, interface: String, method: String,
                     arguments: [BusValue] = [], timeout: Double = 25,
                     completion: @escaping (Result<[BusValue], any Error>) -> Void) {
        let message: OpaquePointer
        do {
            message = try Self.methodCall(destination, path: path, interface: interface, method: method,
                                          arguments: arguments, autoStart: false)
        } catch {
            return completion(.failure(error))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        send(message, timeout: timeout, completion)
    }

    private func send(_ message: OpaquePointer, timeout: Double,
                      _ completion: @escaping (Result<[BusValue], any Error>) -> Void) {
        let box = Unmanaged.passRetained(CallReply(completion)).toOpaque()
        g_dbus_connection_send_message_with_reply(
            raw, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, Self.milliseconds(timeout), nil, nil, { source, result, data in
                guard let data else { return }
                let reply = Unmanaged<CallReply>.fromOpaque(data).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let message = g_dbus_connection_send_message_with_reply_finish(OpaquePointer(source), result, &error)
                reply.completion(Result { try BusConnection.values(ofReply: message, error) })
            }, box)
    }

    /// Calls `method` and blocks until its reply: for command-line tools without a main loop.
    /// File descriptors travel as with ``call(_:path:interface:method:arguments:autoStart:timeout:)``.
    ///
    /// - Parameters:
    ///   - autoStart: whether the bus may start the destination through D-Bus activation.
    ///   - timeout: seconds to wait; `nil` waits as long as it takes.
    /// - Throws: ``BusError``; ``BusError/failed(_:)`` when the arguments cannot be sent (see
    ///   ``BusValueError``) or the reply cannot be read.
    public func callSync(_ destination: String, path: String, interface: String, method: String,
                         arguments: [BusValue] = [], autoStart: Bool = true,
                         timeout: Double? = 25) throws -> [BusValue] {
        let message = try Self.methodCall(destination, path: path, interface: interface, method: method,
                                          arguments: arguments, autoStart: autoStart)
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_send_message_with_reply_sync(
            raw, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, timeout.map(Self.milliseconds) ?? Int32.max, nil, nil, &error)
        return try Self.values(ofReply: reply, error)
    }

    /// A method call message with `arguments` as its body and their descriptors attached.
    private static func methodCall(_ destination: String, path: String, interface: String, method: String,
                                   arguments: [BusValue], autoStart: Bool) throws -> OpaquePointer {
        let body = try Self.body(arguments, allowingFileDescriptors: true)
        guard let message = g_dbus_message_new_method_call(destination, path, interface, method) else {
            throw BusError.failed("cannot make a call of \(method): a name, path or interface is not valid")
        }
        withExtendedLifetime(body) {
            g_dbus_message_set_body(message, body.variant)
            if let fileDescriptors = body.fileDescriptors { g_dbus_message_set_unix_fd_list(message, fileDescriptors) }
        }
        if !autoStart { g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_AUTO_START) }
        return message
    }

    /// The out arguments of a method return, or the ``BusError`` of an error reply or of a
    /// call that got none (`error`). Takes the reply and the error.
    nonisolated static func values(ofReply reply: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) throws -> [BusValue] {
        guard let reply else { throw BusError(taking: error) }
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        let body = g_dbus_message_get_body(reply)
        let fileDescriptors = g_dbus_message_get_unix_fd_list(reply)
        let read = { try body.map { try arguments(of: $0, fileDescriptors: fileDescriptors) } ?? [] }
        guard g_dbus_message_get_message_type(reply) == G_DBUS_MESSAGE_TYPE_ERROR else {
            do {
                return try read()
            } catch {
                throw BusError.failed("the reply could not be read: \(error)")
            }
        }
        // An error keeps its name whatever its body holds.
        let name = g_dbus_message_get_error_name(reply).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let values = (try? read()) ?? []
        throw BusError.remote(name: name, message: values.first?.string ?? "", details: values.dropFirst().first?.dictionary ?? [:])
    }
}

/// The continuation of one asynchronous call, resumed once by GLib's callback.
private final class CallReply {
    let completion: (Result<[BusValue], any Error>) -> Void

    init(_ completion: @escaping (Result<[BusValue], any Error>) -> Void) {
        self.completion = completion
    }
}
