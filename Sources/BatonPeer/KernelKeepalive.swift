import CGLib
import Foundation

/// The system's watch over a link's TCP socket: TCP keepalive and `TCP_USER_TIMEOUT`, so
/// that a peer gone without a word (its machine off or out of reach: no FIN, no RST) is
/// noticed by the kernel, which fails the link's read, while batond sleeps.
///
/// A quiet link is probed after ``idle`` seconds, then every ``interval``; once nothing at
/// all came from the peer for ``userTimeout`` milliseconds (twice the keepalive), the kernel
/// resets the connection. Bytes sent and left unacknowledged that long end it too. A peer
/// that answers but reads slowly (its window full) is not dropped (Linux 5.11 and later).
struct KernelKeepalive: Equatable {
    /// Seconds of quiet before the first probe (`TCP_KEEPIDLE`).
    let idle: Int32
    /// Seconds between two probes (`TCP_KEEPINTVL`).
    let interval: Int32
    /// Probes unanswered before the link is dropped (`TCP_KEEPCNT`).
    let count: Int32
    /// Milliseconds without a word from the peer, or with bytes sent unacknowledged, before
    /// the link is dropped (`TCP_USER_TIMEOUT`): it decides, the count only agrees with it.
    let userTimeout: UInt32

    /// The watch for links whose ``PeerLink/keepalive`` is `keepalive` seconds: probes after
    /// that much quiet, the link dropped after twice that without an answer.
    init(keepalive: Double) {
        let seconds = min(max(keepalive, 0), 3600)
        idle = Int32(max(1, seconds.rounded()))
        interval = Int32(max(1, (seconds / 5).rounded(.down)))
        let timeout = max(2 * seconds, Double(idle + interval))
        count = Int32(max(1, ((timeout - Double(idle)) / Double(interval)).rounded(.up)))
        userTimeout = UInt32(timeout * 1000)
    }

    /// Sets the watch on `socket`. Returns whether it took: `false` for a socket that is not
    /// TCP (a Unix socket), which is left as it was.
    func apply(to socket: UnsafeMutablePointer<GSocket>) -> Bool {
        let options: [(level: Int32, name: Int32, value: Int32)] = [
            (Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle),
            (Int32(IPPROTO_TCP), TCP_KEEPINTVL, interval),
            (Int32(IPPROTO_TCP), TCP_KEEPCNT, count),
            (Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(clamping: userTimeout)),
            (SOL_SOCKET, SO_KEEPALIVE, 1),
        ]
        for option in options {
            var error: UnsafeMutablePointer<GError>?
            guard g_socket_set_option(socket, gint(option.level), gint(option.name), gint(option.value), &error) != 0
            else {
                g_clear_error(&error)
                return false
            }
        }
        return true
    }
}
