import BatonGLib
import CGLib
import Foundation

/// Why a link could not be made.
public struct LinkError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    init(taking error: UnsafeMutablePointer<GError>?, _ what: String) {
        var error = error
        reason = "\(what): \(error.map { String(cString: $0.pointee.message) } ?? "unknown error")"
        g_clear_error(&error)
    }

    public var description: String { reason }
}

/// Makes ``PeerLink``s: mutual TLS 1.3 over TCP with GIO's `GTlsConnection`
/// (glib-networking), this device presenting its identity certificate.
///
/// Either side must show a certificate, and any certificate is accepted during the
/// handshake: the handshake proves the peer holds the certificate's key, and batond decides
/// afterwards, by its pins, what the peer may see. A link that does not reach TLS 1.3 is
/// refused.
@MainActor
public final class PeerTLS {
    let certificate: UnsafeMutablePointer<GTlsCertificate>
    /// Seconds allowed for TCP connect plus handshake, dialing.
    public var handshakeTimeout: Double = 10
    /// Seconds an incoming connection has to send its first bytes: a TLS client sends its
    /// hello at once, so a quiet connection only holds a place.
    public var firstBytesTimeout: Double = 2
    /// Seconds an incoming connection has to finish its handshake.
    public var incomingHandshakeTimeout: Double = 5
    /// The ``PeerLink/keepalive`` of links made here.
    public var keepalive: Double = 10
    /// The one address this device listens on, when it listens on one rather than on all:
    /// links are dialed from it (``sourceAddress(dialing:from:)``), so that the other side sees
    /// this device at the address it knows it by (a static peer's, a paired device's).
    public var listenHost: String?

    /// - Throws: ``LinkError`` when GIO cannot read the identity or has no TLS backend
    ///   (install glib-networking).
    public init(identity: DeviceIdentity) throws {
        guard g_tls_backend_supports_tls(g_tls_backend_get_default()) != 0 else {
            throw LinkError("GIO has no TLS backend: install glib-networking")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let certificate = g_tls_certificate_new_from_pem(identity.pem, -1, &error) else {
            throw LinkError(taking: error, "the identity certificate")
        }
        self.certificate = certificate
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(certificate))
    }

    /// Dials `address` (`HOST:PORT`) and completes the handshake.
    ///
    /// - Throws: ``LinkError``.
    public func connect(to address: String) async throws -> PeerLink {
        let connection = try await Self.dial(address, timeout: handshakeTimeout,
                                             from: listenHost.flatMap { Self.sourceAddress(dialing: address, from: $0) })
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        return try await connect(over: connection)
    }

    /// Runs the client side of the handshake on a connection already open (one a relay
    /// spliced to the other device), taking a reference of its own.
    ///
    /// With `answerWithin`, the peer must answer the first message within that many seconds
    /// or the handshake ends, `control` telling so (``IncomingHandshake/wentUnanswered``).
    ///
    /// - Throws: ``LinkError``.
    public func connect(over connection: UnsafeMutablePointer<GSocketConnection>,
                        control: IncomingHandshake = IncomingHandshake(),
                        answerWithin: Double? = nil) async throws -> PeerLink {
        // The dialer's timeout stays off the socket: the link's keepalive (the system's, or
        // its pings through a relay) decides from here on.
        g_socket_set_timeout(g_socket_connection_get_socket(connection), 0)
        var error: UnsafeMutablePointer<GError>?
        guard let stream = baton_tls_client_new_pinned(UnsafeMutablePointer(OpaquePointer(connection)), &error) else {
            throw LinkError(taking: error, "TLS")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
        g_tls_connection_set_certificate(UnsafeMutablePointer(OpaquePointer(stream)), certificate)
        baton_tls_pin_after_handshake(stream)
        let deadline = control.end(after: handshakeTimeout, "no handshake within \(Self.seconds(handshakeTimeout))")
        defer { GLibSources.cancel(deadline) }
        let watch = answerWithin.flatMap { AnswerWatch(connection, within: $0, ending: control) }
        defer { watch?.stop() }
        return try await handshake(stream, connection, isOutgoing: true, control: control)
    }

    /// The address to dial `address` (`HOST:PORT`) from when this device listens on
    /// `listenHost` alone: that host, when both are IP addresses of one family and both
    /// loopback or both not (a loopback source cannot reach another host); else none, and the
    /// system chooses.
    nonisolated static func sourceAddress(dialing address: String, from listenHost: String) -> String? {
        guard let host = PeerAddress.host(of: address),
              let source = g_inet_address_new_from_string(listenHost) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(source)) }
        guard let destination = g_inet_address_new_from_string(host) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(destination)) }
        guard g_inet_address_get_is_any(source) == 0,
              g_inet_address_get_family(source) == g_inet_address_get_family(destination),
              g_inet_address_get_is_loopback(source) == g_inet_address_get_is_loopback(destination) else { return nil }
        return listenHost
    }

    /// A TCP connection to `address` (`HOST:PORT`), without proxies, within `timeout` seconds;
    /// the caller owns the reference.
    ///
    /// - Throws: ``LinkError``.
    static func dial(_ address: String, timeout: Double,
                     from source: String? = nil) async throws -> UnsafeMutablePointer<GSocketConnection> {
        let client = g_socket_client_new()
        defer { g_object_unref(UnsafeMutableRawPointer(client)) }
        if let source, let local = g_inet_socket_address_new_from_string(source, 0) {
            g_socket_client_set_local_address(client, UnsafeMutablePointer(OpaquePointer(local)))
            g_object_unref(UnsafeMutableRawPointer(local))
        }
        g_socket_client_set_timeout(client, guint(max(1, timeout.rounded(.up))))
        // Peers are on the local network: no proxy (which would also need GSettings schemas).
        g_socket_client_set_enable_proxy(client, 0)
        let cancellable = g_cancellable_new()
        defer { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        let handle: UInt = try await withCheckedThrowingContinuation { continuation in
            let box = Unmanaged.passRetained(Pending(continuation)).toOpaque()
            g_socket_client_connect_to_host_async(client, address, 0, cancellable, { source, result, data in
                guard let data else { return }
                let pending = Unmanaged<Pending<UInt>>.fromOpaque(data).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                if let connection = g_socket_client_connect_to_host_finish(
                    UnsafeMutablePointer(OpaquePointer(source)), result, &error) {
                    pending.continuation.resume(returning: UInt(bitPattern: connection))
                } else {
                    pending.continuation.resume(throwing: LinkError(taking: error, "cannot connect"))
                }
            }, box)
        }
        guard let connection = UnsafeMutablePointer<GSocketConnection>(bitPattern: handle) else {
            throw LinkError("cannot connect to \(address)")
        }
        return connection
    }

    /// Runs the server side of the handshake on a connection a ``PeerListener`` accepted,
    /// taking over the listener's reference to it.
    ///
    /// The peer must send its first bytes within ``firstBytesTimeout`` and finish the
    /// handshake within ``incomingHandshakeTimeout``: a connection that only holds a place is
    /// dropped early. The owner may end it sooner through `control`.
    ///
    /// - Throws: ``LinkError``.
    /// `firstBytesWithin` replaces ``firstBytesTimeout`` for a connection whose peer may
    /// start later (a relay's session, which the other side joins in its own time).
    public func accept(_ connection: UnsafeMutablePointer<GSocketConnection>,
                       control: IncomingHandshake = IncomingHandshake(),
                       firstBytesWithin: Double? = nil) async throws -> PeerLink {
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let firstBytesTimeout = firstBytesWithin ?? self.firstBytesTimeout
        let handshakeTimeout = max(incomingHandshakeTimeout, firstBytesTimeout + 3)
        let deadline = control.end(after: handshakeTimeout,
                                   "no handshake within \(Self.seconds(handshakeTimeout))")
        defer { GLibSources.cancel(deadline) }
        let firstBytes = control.end(after: firstBytesTimeout, "nothing sent within \(Self.seconds(firstBytesTimeout))")
        try await waitForBytes(on: connection, control)
        GLibSources.cancel(firstBytes)
        var error: UnsafeMutablePointer<GError>?
        guard let stream = baton_tls_server_new_pinned(UnsafeMutablePointer(OpaquePointer(connection)), certificate, &error)
        else { throw LinkError(taking: error, "TLS") }
        defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
        baton_tls_require_client_certificate(stream)
        baton_tls_pin_after_handshake(stream)
        return try await handshake(stream, connection, isOutgoing: false, control: control)
    }

    /// Returns once the peer has sent something (or closed), throwing when `control` ends first.
    private func waitForBytes(on connection: UnsafeMutablePointer<GSocketConnection>,
                              _ control: IncomingHandshake) async throws {
        let socket = g_socket_connection_get_socket(connection)
        let condition = GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        guard let source = g_socket_create_source(socket, condition, control.cancellable) else {
            throw LinkError("cannot watch the connection")
        }
        defer { g_source_unref(source) }
        let ready: GSocketSourceFunc = { _, _, data in
            guard let data else { return baton_source_remove() }
            Unmanaged<Pending<Void>>.fromOpaque(data).takeRetainedValue().continuation.resume()
            return baton_source_remove()
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let box = Unmanaged.passRetained(Pending<Void>(continuation)).toOpaque()
            g_source_set_callback(source, unsafeBitCast(ready, to: GSourceFunc.self), box, nil)
            g_source_attach(source, nil)
        }
        if let reason = control.endedBecause { throw LinkError(reason) }
    }

    /// Turns Nagle's algorithm off: frames and relay messages are small and answered at once,
    /// and Nagle would hold each for the other side's (delayed) ACK, some 40 ms.
    static func sendAtOnce(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        var error: UnsafeMutablePointer<GError>?
        if g_socket_set_option(g_socket_connection_get_socket(connection), gint(IPPROTO_TCP), gint(TCP_NODELAY), 1,
                               &error) == 0 {
            g_clear_error(&error)
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Runs the TLS handshake of `stream` (a `GTlsConnection`) to its end; `cancellable` ends
    /// it early.
    ///
    /// - Throws: ``LinkError`` naming `what` failed, with GLib's reason.
    static func runHandshake(_ stream: UnsafeMutablePointer<GIOStream>, cancellable: UnsafeMutablePointer<GCancellable>?,
                             failing what: String) async throws {
        // The callback hands back its GError (0 when there is none), made a LinkError here.
        let failure: UInt = try await withCheckedThrowingContinuation { continuation in
            let box = Unmanaged.passRetained(Pending(continuation)).toOpaque()
            g_tls_connection_handshake_async(UnsafeMutablePointer(OpaquePointer(stream)), G_PRIORITY_DEFAULT, cancellable,
                                             { source, result, data in
                guard let data else { return }
                let pending = Unmanaged<Pending<UInt>>.fromOpaque(data).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                _ = g_tls_connection_handshake_finish(UnsafeMutablePointer(OpaquePointer(source)), result, &error)
                pending.continuation.resume(returning: UInt(bitPattern: error))
            }, box)
        }
        if let error = UnsafeMutablePointer<GError>(bitPattern: failure) { throw LinkError(taking: error, what) }
    }

    private func handshake(_ stream: UnsafeMutablePointer<GIOStream>,
                           _ connection: UnsafeMutablePointer<GSocketConnection>, isOutgoing: Bool,
                           control: IncomingHandshake) async throws -> PeerLink {
        Self.sendAtOnce(connection)
        let tls = UnsafeMutablePointer<GTlsConnection>(OpaquePointer(stream))
        do {
            try await Self.runHandshake(stream, cancellable: control.cancellable, failing: "TLS handshake")
        } catch where control.endedBecause != nil {
            // A handshake ended by its owner or a deadline fails as "cancelled": the reason
            // is said below instead.
        }
        if let reason = control.endedBecause { throw LinkError("TLS handshake: \(reason)") }
        guard g_tls_connection_get_protocol_version(tls) == G_TLS_PROTOCOL_VERSION_TLS_1_3 else {
            throw LinkError("the peer did not speak TLS 1.3")
        }
        guard let peer = g_tls_connection_get_peer_certificate(tls), let der = baton_tls_certificate_der(peer) else {
            throw LinkError("the peer showed no certificate")
        }
        defer { g_byte_array_unref(der) }
        let bytes = Array(UnsafeBufferPointer(start: der.pointee.data, count: Int(der.pointee.len)))
        do {
            return try PeerLink(stream: stream, socketConnection: connection, peerCertificateDER: bytes,
                                isOutgoing: isOutgoing, keepalive: keepalive)
        } catch {
            throw LinkError("the peer's certificate: \(error)")
        }
    }
}

/// A listening TCP socket for peers (`GSocketService`): each accepted connection is handed
/// to ``onConnection``, on the main loop.
@MainActor
public final class PeerListener {
    private let service: UnsafeMutablePointer<GSocketService>
    /// The address it listens on, the port filled in when 0 was asked for.
    public let host: String
    public let port: UInt16
    /// Runs with each accepted connection, and a reference to it that
    /// ``PeerTLS/accept(_:)`` takes over.
    public var onConnection: (UnsafeMutablePointer<GSocketConnection>) -> Void = { _ in }

    /// Listens on `host:port`; port 0 picks a free one.
    ///
    /// - Throws: ``LinkError`` for an address that is not an IP address, or a port in use.
    public init(host: String, port: UInt16) throws {
        guard let address = g_inet_socket_address_new_from_string(host, guint(port)) else {
            throw LinkError("\(host) is not an IP address")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        service = g_socket_service_new()
        var effective: UnsafeMutablePointer<GSocketAddress>?
        var error: UnsafeMutablePointer<GError>?
        let listener = UnsafeMutablePointer<GSocketListener>(OpaquePointer(service))
        g_socket_listener_set_backlog(listener, Self.backlog)
        guard g_socket_listener_add_address(listener, UnsafeMutablePointer(OpaquePointer(address)),
                                            G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil, &effective, &error) != 0
        else {
            g_object_unref(UnsafeMutableRawPointer(service))
            throw LinkError(taking: error, "cannot listen on \(host):\(port)")
        }
        if let effective {
            self.port = UInt16(g_inet_socket_address_get_port(UnsafeMutablePointer(OpaquePointer(effective))))
            g_object_unref(UnsafeMutableRawPointer(effective))
        } else {
            self.port = port
        }
        self.host = host
        let trampoline: @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?) -> gboolean = { _, connection, _, data in
            guard let data, let connection else { return 0 }
            let listener = Unmanaged<PeerListener>.fromOpaque(data).takeUnretainedValue()
            g_object_ref(connection)
            MainActor.assumeIsolated {
                listener.onConnection(UnsafeMutablePointer(OpaquePointer(connection)))
            }
            return 1
        }
        baton_signal_connect(UnsafeMutableRawPointer(service), "incoming",
                             unsafeBitCast(trampoline, to: GCallback.self),
                             Unmanaged.passUnretained(self).toOpaque(), nil)
        g_socket_service_start(service)
    }

    /// Connections the system holds for the listener while it is not taking them in (GLib's
    /// default is 10): room for devices' connections beside a flood's while it is paused.
    public static let backlog: Int32 = 128

    /// Whether it is paused (``pause(for:)``).
    public private(set) var isPaused = false
    private var resumeTimer: guint = 0

    /// Stops taking in connections for `seconds`: they wait in the system's backlog meanwhile.
    public func pause(for seconds: Double) {
        guard !isPaused else { return }
        isPaused = true
        g_socket_service_stop(service)
        resumeTimer = GLibSources.once(after: seconds) { [weak self] in
            guard let self else { return }
            resumeTimer = 0
            isPaused = false
            g_socket_service_start(service)
        }
    }

    isolated deinit {
        if resumeTimer != 0 { GLibSources.cancel(resumeTimer) }
        g_socket_service_stop(service)
        g_socket_listener_close(UnsafeMutablePointer(OpaquePointer(service)))
        g_signal_handlers_disconnect_matched(UnsafeMutableRawPointer(service), G_SIGNAL_MATCH_DATA, 0, 0, nil, nil,
                                             Unmanaged.passUnretained(self).toOpaque())
        g_object_unref(UnsafeMutableRawPointer(service))
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    public var address: String { PeerAddress.format(host: host, port: UInt32(port)) }
}

/// Addresses of peers as text.
public enum PeerAddress {
    /// `HOST:PORT`, with brackets around an IPv6 host, as GIO's `g_socket_client_connect_to_host` reads it.
    public static func format(host: String, port: UInt32) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The host of `HOST:PORT` (brackets around an IPv6 host taken off); `nil` without a port.
    public static func host(of address: String) -> String? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        let host = address[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : String(host)
    }
}

/// A handshake under way, which its owner or a deadline may end early: an incoming one whose
/// place a newer connection needs, one past its time, or one whose peer never answers.
@MainActor
public final class IncomingHandshake {
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// Why it was ended, once it was.
    public private(set) var endedBecause: String?

    public init() {
        cancellable = g_cancellable_new()
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    /// Ends the handshake: it fails with `reason`.
    public func end(_ reason: String) {
        guard endedBecause == nil else { return }
        endedBecause = reason
        g_cancellable_cancel(cancellable)
    }

    /// Whether it ended because the peer never answered (``AnswerWatch``).
    public private(set) var wentUnanswered = false

    func endUnanswered(_ reason: String) {
        guard endedBecause == nil else { return }
        wentUnanswered = true
        end(reason)
    }

    /// Ends the handshake after `seconds` unless the returned source is cancelled first.
    func end(after seconds: Double, _ reason: String) -> guint {
        GLibSources.once(after: seconds) { [weak self] in self?.end(reason) }
    }
}

/// The continuation of one GIO asynchronous call, resumed once by its callback.
final class Pending<T> {
    let continuation: CheckedContinuation<T, any Error>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = continuation
    }
}
