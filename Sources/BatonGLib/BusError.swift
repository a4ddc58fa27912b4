import CGLib

/// Why a D-Bus call failed.
public enum BusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The peer answered with a D-Bus error: its name (such as
    /// `org.freedesktop.DBus.Error.ServiceUnknown`), message, and the details an error of
    /// Baton's carries after its message (see ``BusMethodCall/fail(name:message:details:)``).
    case remote(name: String, message: String, details: [String: BusValue] = [:])
    /// No answer came within the call's timeout.
    case timedOut(String)
    /// The call could not be made: no bus, a closed connection, bad arguments.
    case failed(String)

    /// The D-Bus error name, for ``remote(name:message:details:)``.
    public var remoteName: String? {
        if case .remote(let name, _, _) = self { return name }
        return nil
    }

    /// The details of a remote error: empty unless the peer sent some.
    public var details: [String: BusValue] {
        if case .remote(_, _, let details) = self { return details }
        return [:]
    }

    /// The error's message without its name.
    public var message: String {
        switch self {
        case .remote(_, let message, _), .timedOut(let message), .failed(let message): return message
        }
    }

    public var description: String {
        switch self {
        case .remote(let name, let message, _): return "\(name): \(message)"
        case .timedOut(let message): return "timed out: \(message)"
        case .failed(let message): return message
        }
    }

    /// Takes and frees a `GError`.
    package init(taking error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self = .failed("unknown error")
            return
        }
        defer { g_error_free(error) }
        if g_dbus_error_is_remote_error(error) != 0, let name = g_dbus_error_get_remote_error(error) {
            let remoteName = String(cString: name)
            g_free(name)
            _ = g_dbus_error_strip_remote_error(error)
            self = .remote(name: remoteName, message: String(cString: error.pointee.message))
        } else if error.pointee.domain == baton_io_error_quark(),
                  error.pointee.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue) {
            self = .timedOut(String(cString: error.pointee.message))
        } else {
            self = .failed(String(cString: error.pointee.message))
        }
    }
}
