@testable import BatonPeer
import CGLib
import Foundation

/// Two ``PeerLink``s over the two ends of a `socketpair`: a link between two devices inside
/// the test process, with no TLS and no network, as Valent's `valent-mock-channel.c` is.
///
/// Each end carries frames exactly as a TLS link does (the same reader, writer, keepalive and
/// trust); only the handshake is left out, so each end is told the other's certificate. The
/// far end's address is empty: a Unix socket has no host.
@MainActor
enum SocketPairLink {
    /// A link between `local` and `remote`: `local` is the end whose peer is `remote`, as
    /// ``PeerNetwork/adopt(_:dialed:)`` takes it, and `remote` the other. `localDialed` says
    /// which side counts as the dialer (``PeerLink/isOutgoing``).
    static func make(between local: DeviceIdentity, and remote: DeviceIdentity, localDialed: Bool = false,
                     keepalive: Double = 30) throws -> (local: PeerLink, remote: PeerLink) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SocketPairError("socketpair: \(String(cString: strerror(errno)))")
        }
        let localEnd: PeerLink
        do {
            localEnd = try link(over: fds[0], to: remote, isOutgoing: localDialed, keepalive: keepalive)
        } catch {
            close(fds[1])
            throw error
        }
        let remoteEnd = try link(over: fds[1], to: local, isOutgoing: !localDialed, keepalive: keepalive)
        return (localEnd, remoteEnd)
    }

    /// A link over the socket `fd` (taken over, closed with the link) whose peer is `peer`.
    private static func link(over fd: Int32, to peer: DeviceIdentity, isOutgoing: Bool,
                             keepalive: Double) throws -> PeerLink {
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new_from_fd(fd, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            close(fd)
            throw SocketPairError("g_socket_new_from_fd: \(message)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
        guard let connection = g_socket_connection_factory_create_connection(socket) else {
            throw SocketPairError("g_socket_connection_factory_create_connection made no connection")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        // A GSocketConnection is a GIOStream of its own: the link reads and writes it directly.
        return try PeerLink(stream: UnsafeMutablePointer(OpaquePointer(connection)), socketConnection: connection,
                            peerCertificateDER: peer.certificateDER, isOutgoing: isOutgoing, keepalive: keepalive)
    }
}

/// A socket pair that could not be made.
struct SocketPairError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
