import BatonGLib
import CGLib

/// Ends a handshake whose peer sends nothing within a time: the client side of a relay's
/// session, whose other end the relay may have lost, so that its `ClientHello` would go
/// unanswered until the whole handshake's deadline.
@MainActor
final class AnswerWatch {
    private var deadline: guint
    private let source: UnsafeMutablePointer<GSource>

    /// Watches `connection` from now; ``stop()`` must be called once the handshake is over.
    init?(_ connection: UnsafeMutablePointer<GSocketConnection>, within seconds: Double, ending control: IncomingHandshake) {
        let condition = GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        guard let source = g_socket_create_source(g_socket_connection_get_socket(connection), condition, nil) else {
            return nil
        }
        self.source = source
        deadline = GLibSources.once(after: seconds) { [weak control] in
            control?.endUnanswered("no answer within \(PeerTLS.seconds(seconds))")
        }
        let answered: GSocketSourceFunc = { _, _, data in
            guard let data else { return baton_source_remove() }
            let watch = Unmanaged<AnswerWatch>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { GLibSources.cancel(watch.deadline) }
            return baton_source_remove()
        }
        g_source_set_callback(source, unsafeBitCast(answered, to: GSourceFunc.self),
                              Unmanaged.passUnretained(self).toOpaque(), nil)
        g_source_attach(source, nil)
    }

    /// Stops watching: no deadline runs and no callback reaches this object after.
    func stop() {
        GLibSources.cancel(deadline)
        g_source_destroy(source)
        g_source_unref(source)
    }
}
