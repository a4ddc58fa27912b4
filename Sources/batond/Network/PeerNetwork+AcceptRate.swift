import BatonGLib
import CGLib
import Foundation

/// Connections over the accept rate (``AcceptRate``) closed the moment they are accepted.
extension PeerNetwork {
    /// Whether `connection`, just accepted from `host`, is within the accept rate; one that
    /// is not is closed at once, with a reset and no TLS work, and counted for a log line
    /// (at most one a minute). Once a slice's refusals reach ``AcceptRate/refusalsPerSlice``,
    /// the listener pauses for the rest of the slice.
    func withinAcceptRate(_ connection: UnsafeMutablePointer<GSocketConnection>, from host: String, pairedDevice: Bool) -> Bool {
        let now = MonotonicClock.now
        if acceptRate.allow(host, pairedDevice: pairedDevice, now: now) { return true }
        Self.reset(connection)
        if let seconds = acceptRate.pause(now: now) { listener?.pause(for: seconds) }
        if let refused = acceptRate.refusalsToLog(now: now) {
            let limits = "at most \(Int(acceptRate.perAddress.rate)) a second per address, \(Int(acceptRate.perNetwork.rate)) per network "
                + "and \(Int(acceptRate.overall.rate)) in all"
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
