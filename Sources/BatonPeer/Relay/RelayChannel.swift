import BatonGLib
import CGLib
import Crypto
import Foundation

/// One connection to a relay server speaking its protocol: over TLS (protocol mode, where a
/// device joins the relay or asks to reach another) or plain TCP (session mode, to join a
/// session before the relay splices it). Messages are read whole, and never a byte past the
/// message: after a session's `Response` the bytes are the other device's.
@MainActor
final class RelayChannel {
    /// The connection (TLS or TCP) messages go over; owned.
    let stream: UnsafeMutablePointer<GIOStream>
    /// The TCP connection under it; owned.
    let connection: UnsafeMutablePointer<GSocketConnection>
    private let cancellable = g_cancellable_new()!
    /// Whether the connection went on to carry a session, so closing the channel must leave it open.
    private var isHandedOff = false

    private init(stream: UnsafeMutablePointer<GIOStream>, connection: UnsafeMutablePointer<GSocketConnection>) {
        self.stream = stream
        self.connection = connection
    }

    isolated deinit {
        if !isHandedOff { close() }
        g_object_unref(UnsafeMutableRawPointer(stream))
        g_object_unref(UnsafeMutableRawPointer(connection))
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    /// The TCP connection, with a reference of its own, for the session it now carries: the
    /// channel no longer closes it.
    func handOff() -> UnsafeMutablePointer<GSocketConnection> {
        isHandedOff = true
        g_object_ref(connection)
        return connection
    }

    /// Ends the connection: a read under way fails. The socket is closed under the stream, so
    /// nothing waits on a TLS close the other side may never answer.
    func close() {
        g_cancellable_cancel(cancellable)
        g_socket_close(g_socket_connection_get_socket(connection), nil)
    }

    /// Protocol mode: TLS to `relay` with `certificate` as the client's (the relay knows a
    /// device by its certificate's SHA-256), the relay's own certificate pinned to the
    /// relay address's id.
    ///
    /// - Throws: ``LinkError``.
    static func protocolMode(to relay: RelayAddress, certificate: UnsafeMutablePointer<GTlsCertificate>,
                             timeout: Double) async throws -> RelayChannel {
        let connection = try await PeerTLS.dial(PeerAddress.format(host: relay.host, port: UInt32(relay.port)), timeout: timeout)
        // The dialer's timeout stays off the socket: a joined device waits for the relay's
        // pings for minutes, and each step here has a deadline of its own.
        g_socket_set_timeout(g_socket_connection_get_socket(connection), 0)
        PeerTLS.sendAtOnce(connection)
        var error: UnsafeMutablePointer<GError>?
        guard let stream = baton_tls_client_new_pinned(UnsafeMutablePointer(OpaquePointer(connection)), &error) else {
            g_object_unref(UnsafeMutableRawPointer(connection))
            throw LinkError(taking: error, "TLS to the relay")
        }
        let channel = RelayChannel(stream: stream, connection: connection)
        g_tls_connection_set_certificate(UnsafeMutablePointer(OpaquePointer(stream)), certificate)
        baton_tls_pin_after_handshake(stream)
        baton_tls_advertise_bep_relay(stream)
        let deadline = GLibSources.once(after: timeout) { [weak channel] in channel?.close() }
        defer { GLibSources.cancel(deadline) }
        try await PeerTLS.runHandshake(stream, cancellable: channel.cancellable, failing: "TLS handshake with the relay")
        guard let peer = g_tls_connection_get_peer_certificate(UnsafeMutablePointer(OpaquePointer(stream))),
              let der = baton_tls_certificate_der(peer) else {
            throw LinkError("the relay showed no certificate")
        }
        defer { g_byte_array_unref(der) }
        let bytes = Array(UnsafeBufferPointer(start: der.pointee.data, count: Int(der.pointee.len)))
        guard SyncthingDeviceID.digest(ofCertificate: bytes) == relay.certificateDigest else {
            throw LinkError("the relay at \(relay.host):\(relay.port) is not the one its id names (its certificate is "
                            + "\(SyncthingDeviceID.text(of: SyncthingDeviceID.digest(ofCertificate: bytes))))")
        }
        return channel
    }

    /// Session mode: plain TCP to `host:port`.
    ///
    /// - Throws: ``LinkError``.
    static func sessionMode(host: String, port: UInt16, timeout: Double) async throws -> RelayChannel {
        let connection = try await PeerTLS.dial(PeerAddress.format(host: host, port: UInt32(port)), timeout: timeout)
        // Off, as above: the session becomes a link, which its pings watch.
        g_socket_set_timeout(g_socket_connection_get_socket(connection), 0)
        PeerTLS.sendAtOnce(connection)
        g_object_ref(connection)
        return RelayChannel(stream: UnsafeMutablePointer(OpaquePointer(connection)), connection: connection)
    }

    func send(_ message: RelayMessage) async throws {
        let bytes = try message.encoded()
        let output = g_io_stream_get_output_stream(stream)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let box = Unmanaged.passRetained(Pending(continuation)).toOpaque()
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            let write = WriteBox(buffer: buffer, pending: box)
            g_output_stream_write_all_async(output, buffer, gsize(bytes.count), G_PRIORITY_DEFAULT, cancellable, { source, result, data in
                guard let data else { return }
                let write = Unmanaged<WriteBox>.fromOpaque(data).takeRetainedValue()
                write.buffer.deallocate()
                let pending = Unmanaged<Pending<Void>>.fromOpaque(write.pending).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                if g_output_stream_write_all_finish(UnsafeMutablePointer(OpaquePointer(source)), result, nil, &error) != 0 {
                    pending.continuation.resume()
                } else {
                    pending.continuation.resume(throwing: LinkError(taking: error, "writing to the relay"))
                }
            }, Unmanaged.passRetained(write).toOpaque())
        }
    }

    /// The next message, read whole; `timeout` seconds at most when given.
    ///
    /// - Throws: ``LinkError`` when the connection ends or the time is up, ``RelayProtocolError``
    ///   for bytes that are not a message.
    func receive(timeout: Double? = nil) async throws -> RelayMessage {
        let deadline = timeout.map { seconds in GLibSources.once(after: seconds) { [weak self] in self?.close() } }
        defer { if let deadline { GLibSources.cancel(deadline) } }
        let header = try await read(RelayMessage.headerSize)
        let length = try RelayMessage.bodyLength(ofHeader: header)
        let body = length > 0 ? try await read(length) : []
        return try RelayMessage(decoding: header + body)
    }

    /// Exactly `count` bytes.
    private func read(_ count: Int) async throws -> [UInt8] {
        let input = g_io_stream_get_input_stream(stream)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        let read: Int = try await withCheckedThrowingContinuation { continuation in
            let box = Unmanaged.passRetained(Pending(continuation)).toOpaque()
            g_input_stream_read_all_async(input, buffer, gsize(count), G_PRIORITY_DEFAULT, cancellable, { source, result, data in
                guard let data else { return }
                let pending = Unmanaged<Pending<Int>>.fromOpaque(data).takeRetainedValue()
                var read: gsize = 0
                var error: UnsafeMutablePointer<GError>?
                if g_input_stream_read_all_finish(UnsafeMutablePointer(OpaquePointer(source)), result, &read, &error) != 0 {
                    pending.continuation.resume(returning: Int(read))
                } else {
                    pending.continuation.resume(throwing: LinkError(taking: error, "reading from the relay"))
                }
            }, box)
        }
        guard read == count else { throw LinkError("the relay closed the connection") }
        return Array(UnsafeRawBufferPointer(start: buffer, count: count))
    }
}

/// A buffer being written and the continuation waiting for it.
private final class WriteBox {
    let buffer: UnsafeMutableRawPointer
    let pending: UnsafeMutableRawPointer

    init(buffer: UnsafeMutableRawPointer, pending: UnsafeMutableRawPointer) {
        self.buffer = buffer
        self.pending = pending
    }
}
