import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

/// Connections over the accept rate closed the moment they are accepted.
extension AcceptRate {
    /// Whether `connection`, just accepted from `host` by `listener`, is within the rate; one
    /// that is not is closed at once, with a reset and no TLS work, and counted for a line on
    /// `logger` (at most one a minute). Once a slice's refusals reach ``refusalsPerSlice``, the
    /// listener pauses for the rest of the slice.
    @MainActor
    mutating func admit(_ connection: UnsafeMutablePointer<GSocketConnection>, from host: String, pairedDevice: Bool,
                        listener: PeerListener?, logger: Logger) -> Bool {
        let now = MonotonicClock.now
        if allow(host, pairedDevice: pairedDevice, now: now) { return true }
        Self.reset(connection)
        if let seconds = pause(now: now) { listener?.pause(for: seconds) }
        if let refused = refusalsToLog(now: now) {
            let limits = "at most \(Int(perAddress.rate)) a second per address, \(Int(perNetwork.rate)) per network "
                + "and \(Int(overall.rate)) in all"
            logger.notice("closed \(refused) incoming connection\(refused == 1 ? "" : "s") over the rate at once, the last from \(host) (\(limits)); the next such line in a minute at the earliest")
        }
        return false
    }

    /// Closes an accepted connection with a reset (no lingering close state on this side)
    /// and drops the listener's reference to it.
    private static func reset(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        if let socket = g_socket_connection_get_socket(connection) {
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(g_socket_get_fd(socket), SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            g_socket_close(socket, nil)
        }
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}
