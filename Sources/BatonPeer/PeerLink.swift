import BatonGLib
import CGLib
import Foundation

/// One TLS link to another device, carrying ``PeerMessage`` frames both ways.
///
/// Made by ``PeerTLS`` once the TLS 1.3 handshake is done, both sides having shown a
/// certificate; whether that certificate is trusted is the owner's decision (pairing and
/// pinning live in batond). Reads and writes run on the GLib main loop. Any bytes that are not
/// a frame of this protocol close it.
///
/// The link answers pings itself. Whether the peer is still there is the system's to watch on
/// the link's own TCP socket (``KernelKeepalive``): a peer gone without a word is noticed after
/// ``keepalive`` seconds of quiet and as long again unanswered, the read fails and the link
/// closes, and a quiet link never wakes batond. A link whose socket does not reach the peer
/// (one through a relay, ``isRelayed``) or takes no TCP options pings instead
/// (``pingsToKeepAlive``): a ping after ``keepalive`` seconds of quiet, the link closed when
/// nothing at all arrived for three times that.
@MainActor
public final class PeerLink {
    /// The peer's certificate, DER: what a paired device pins.
    public let peerCertificateDER: [UInt8]
    /// The peer's public key, DER `SubjectPublicKeyInfo`: input to the verification code.
    public let peerPublicKeyInfo: [UInt8]
    /// The device id of the peer's certificate.
    public let peerDeviceID: String
    /// Whether this side dialed.
    public let isOutgoing: Bool
    /// Whether the link runs through a relay server (a spliced session), not straight to the
    /// peer: its socket reaches only the relay, so the link pings to know the peer is there.
    public var isRelayed = false {
        didSet { if isStarted { armKeepalive() } }
    }
    /// Whether the link pings a quiet peer itself to learn it is still there: through a relay,
    /// whose socket reaches only the relay (which ends a session quiet for minutes), or over a
    /// socket that takes no TCP options. Other links leave it to the system (``KernelKeepalive``).
    public var pingsToKeepAlive: Bool { isRelayed || !isWatchedBySystem }
    /// The peer's address, as `HOST:PORT`.
    public let remoteAddress: String
    /// The peer's IP address, without port.
    public let remoteHost: String
    /// This device's IP address on the link, without port; empty when unknown. A link whose
    /// local address is no longer this device's (the network changed) reaches nobody.
    public let localHost: String
    /// Runs with each message from the peer, keepalives left out.
    public var onMessage: (PeerMessage) -> Void = { _ in }
    /// Runs once, with the reason, when the link closes for any reason but ``close(_:)``.
    public var onClose: (String) -> Void = { _ in }
    /// Called each time queued bytes were written to the socket: a sender that fills the
    /// queue (up to ``maximumQueuedBytes``) refills it here.
    public var onWritten: () -> Void = {}
    /// The bytes queued and not yet handed to the socket.
    public var queuedByteCount: Int { outgoing.count }
    /// Runs with why each invalid offer of an `offers` message was left out (the valid ones
    /// still reach ``onMessage``).
    public var onDroppedOffer: (PeerProtocolError) -> Void = { _ in }
    /// How many invalid offers the peer's `offers` messages held, left out.
    public private(set) var droppedOffers = 0
    public private(set) var isOpen = true
    /// When the TLS handshake finished.
    public let openedAt = Date()
    /// Seconds of quiet before the system probes the peer (the link closes when it answered
    /// nothing for twice that), or, on a link that pings (``pingsToKeepAlive``), before a ping
    /// (the link closes after three times that).
    public let keepalive: Double
    /// Whether the system watches the link's socket (``KernelKeepalive``).
    private let isWatchedBySystem: Bool

    private let stream: UnsafeMutablePointer<GIOStream>
    let socketConnection: UnsafeMutablePointer<GSocketConnection>
    private let cancellable: UnsafeMutablePointer<GCancellable>
    private let readBuffer: UnsafeMutableRawPointer
    /// The TLS streams' pollable faces, for reads and writes that do not wait; `nil` where a
    /// stream cannot poll (then every read and write is asynchronous).
    private let pollableInput: OpaquePointer?
    private let pollableOutput: OpaquePointer?
    private static let readBufferSize = 64 * 1024
    private var reader = FrameReader()
    /// Why the link closes once its queued frames are written.
    private var closingReason: String?
    private var outgoing: [UInt8] = []
    private var isWriting = false
    /// When anything last arrived and when a ping last went out, on the monotonic clock
    /// (seconds), so that a change of the wall clock neither drops links nor stops pings.
    private var lastHeard = MonotonicClock.now
    private var lastPing = MonotonicClock.now
    /// Bytes queued for a peer that does not read: past this, the link closes.
    public static let maximumQueuedBytes = 16 * 1024 * 1024
    private var keepaliveTimer: guint = 0
    /// The check that the peer answers the ping of ``probe(within:)``.
    private var probeTimer: guint = 0
    private var isStarted = false

    /// Whether the peer is paired: only a trusted peer may send activity messages, and
    /// frames of up to ``PeerFrame/maximumBodySize``. An untrusted peer's activity message
    /// is answered with `unpair` (this device does not count it as paired) and closes the
    /// link before its body is read; its other frames may be at most ``untrustedBodyLimit``.
    public var isTrusted = false {
        didSet { reader.maximumBodySize = isTrusted ? PeerFrame.maximumBodySize : Self.untrustedBodyLimit }
    }
    /// The largest frame body an untrusted peer may send: hello, pairing and keepalive
    /// messages are far smaller.
    public static let untrustedBodyLimit = 4096

    init(stream: UnsafeMutablePointer<GIOStream>, socketConnection: UnsafeMutablePointer<GSocketConnection>,
         peerCertificateDER: [UInt8], isOutgoing: Bool, keepalive: Double) throws {
        self.peerCertificateDER = peerCertificateDER
        peerPublicKeyInfo = try PeerCertificate.publicKeyInfo(ofCertificate: peerCertificateDER)
        peerDeviceID = PeerCertificate.deviceID(publicKeyInfo: peerPublicKeyInfo)
        self.stream = stream
        self.socketConnection = socketConnection
        self.isOutgoing = isOutgoing
        self.keepalive = keepalive
        (remoteHost, remoteAddress) = Self.remote(of: socketConnection)
        localHost = Self.endpoint(g_socket_connection_get_local_address(socketConnection, nil))?.host ?? ""
        cancellable = g_cancellable_new()
        readBuffer = UnsafeMutableRawPointer.allocate(byteCount: Self.readBufferSize, alignment: 8)
        pollableInput = Self.pollable(g_io_stream_get_input_stream(stream), g_pollable_input_stream_get_type(),
                                      g_pollable_input_stream_can_poll)
        pollableOutput = Self.pollable(g_io_stream_get_output_stream(stream), g_pollable_output_stream_get_type(),
                                       g_pollable_output_stream_can_poll)
        isWatchedBySystem = KernelKeepalive(keepalive: keepalive).apply(to: g_socket_connection_get_socket(socketConnection))
        reader.maximumBodySize = Self.untrustedBodyLimit
        g_object_ref(UnsafeMutableRawPointer(stream))
        g_object_ref(UnsafeMutableRawPointer(socketConnection))
    }

    isolated deinit {
        GLibSources.cancel(keepaliveTimer)
        GLibSources.cancel(probeTimer)
        g_object_unref(UnsafeMutableRawPointer(cancellable))
        g_object_unref(UnsafeMutableRawPointer(stream))
        g_object_unref(UnsafeMutableRawPointer(socketConnection))
        readBuffer.deallocate()
    }

    /// `stream` as a pollable stream of `type`, when it is one and can poll.
    private static func pollable<Stream>(_ stream: UnsafeMutablePointer<Stream>?, _ type: GType,
                                         _ canPoll: (OpaquePointer?) -> gboolean) -> OpaquePointer? {
        guard let stream, g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(stream)), type) != 0 else {
            return nil
        }
        return canPoll(OpaquePointer(stream)) != 0 ? OpaquePointer(stream) : nil
    }

    /// Starts reading, and the pings of a link that pings (``pingsToKeepAlive``); called once
    /// the owner has set its handlers.
    public func start() {
        guard isOpen, !isStarted else { return }
        isStarted = true
        readLater()
        armKeepalive()
    }

    /// Checks every half ``keepalive`` that a link that pings still hears from its peer.
    private func armKeepalive() {
        guard isOpen, keepaliveTimer == 0, pingsToKeepAlive else { return }
        let interval = min(max(0.05, keepalive / 2), 86_400)
        keepaliveTimer = GLibSources.every(milliseconds: UInt32(interval * 1000)) { [weak self] in
            self?.checkKeepalive()
        }
    }

    /// Queues a message; messages go out in order.
    ///
    /// - Returns: `false`, sending nothing, when the link is closed or the message is over
    ///   ``PeerFrame/maximumBodySize`` (the peer would refuse it and close the link).
    @discardableResult
    public func send(_ message: PeerMessage) -> Bool {
        let frame = message.frame
        guard isOpen, frame.count - PeerFrame.headerSize <= PeerFrame.maximumBodySize else { return false }
        send(frame: frame)
        return isOpen
    }

    /// Queues raw bytes: for tests of how the far side treats bytes that are not frames.
    public func send(frame bytes: [UInt8]) {
        guard isOpen else { return }
        guard outgoing.count + bytes.count <= Self.maximumQueuedBytes else {
            return fail("the peer reads nothing: over \(Self.maximumQueuedBytes / 1024 / 1024) MiB queued")
        }
        outgoing += bytes
        writeNext()
    }

    /// Closes the link now; ``onClose`` does not run.
    public func close(_ reason: String) {
        guard isOpen else { return }
        isOpen = false
        GLibSources.cancel(keepaliveTimer)
        keepaliveTimer = 0
        GLibSources.cancel(probeTimer)
        probeTimer = 0
        g_cancellable_cancel(cancellable)
        var error: UnsafeMutablePointer<GError>?
        if g_socket_close(g_socket_connection_get_socket(socketConnection), &error) == 0 {
            g_clear_error(&error)
        }
    }

    private func fail(_ reason: String) {
        guard isOpen else { return }
        close(reason)
        onClose(reason)
    }

    /// Reads nothing more, writes what is queued, then closes; ``onClose`` runs then, with
    /// `reason`: inside this call when nothing is queued (sends usually write at once).
    public func finish(_ reason: String) {
        fail(afterWritingQueued: reason)
    }

    /// Whether the link is writing its last frames before it closes (``finish(_:)``).
    public var isClosing: Bool { isOpen && closingReason != nil }

    /// Reads nothing more, writes what is queued, then fails with `reason`.
    private func fail(afterWritingQueued reason: String) {
        closingReason = reason
        if !isWriting && outgoing.isEmpty { fail(reason) }
    }

    /// Reads what TLS has ready now, up to ``readPerTurn`` bytes, without a main-loop turn per
    /// TLS record; then waits for more with an asynchronous read.
    private func readNext() {
        var taken = 0
        while isOpen, closingReason == nil, taken < Self.readPerTurn, let count = readReady() {
            guard received(count, error: nil) else { return }
            taken += count
        }
        readLater()
    }

    /// Reads asynchronously: messages reach ``onMessage`` from the main loop, never from
    /// inside a call to the link (``start()`` included), so an owner can finish what it is
    /// doing (sending its hello, say) first.
    private func readLater() {
        guard isOpen else { return }
        let box = Unmanaged.passRetained(self).toOpaque()
        g_input_stream_read_async(g_io_stream_get_input_stream(stream), readBuffer, gsize(Self.readBufferSize),
                                  G_PRIORITY_DEFAULT, cancellable, { source, result, data in
            guard let data else { return }
            let link = Unmanaged<PeerLink>.fromOpaque(data).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let count = g_input_stream_read_finish(UnsafeMutablePointer(OpaquePointer(source)), result, &error)
            let message = error.map { String(cString: $0.pointee.message) }
            g_clear_error(&error)
            MainActor.assumeIsolated {
                if link.received(count, error: message) { link.readNext() }
            }
        }, box)
    }

    /// The most bytes read in one main-loop turn before other sources get theirs.
    private static let readPerTurn = 1024 * 1024

    /// Reads into the buffer what can be read without waiting: the count, or `nil` when
    /// nothing is ready, the peer closed (the asynchronous read that follows sees it), or the
    /// read failed, which fails the link.
    private func readReady() -> Int? {
        guard let pollableInput else { return nil }
        var error: UnsafeMutablePointer<GError>?
        let count = g_pollable_input_stream_read_nonblocking(pollableInput, readBuffer, gsize(Self.readBufferSize),
                                                             cancellable, &error)
        if let failure = Self.failure(error) { fail("read failed: \(failure)") }
        g_clear_error(&error)
        return count > 0 ? count : nil
    }

    /// The message of `error`, unless there is none or it only says that the call would block.
    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error, g_error_matches(error, g_io_error_quark(), gint(G_IO_ERROR_WOULD_BLOCK.rawValue)) == 0 else {
            return nil
        }
        return String(cString: error.pointee.message)
    }

    /// Takes `count` bytes read (0: the peer closed) and handles the whole frames among them.
    /// Returns whether to read on.
    private func received(_ count: Int, error: String?) -> Bool {
        guard isOpen, closingReason == nil else { return false }
        if let error {
            fail("read failed: \(error)")
            return false
        }
        guard count > 0 else {
            fail("the peer closed the link")
            return false
        }
        lastHeard = MonotonicClock.now
        reader.append(UnsafeRawBufferPointer(start: readBuffer, count: count))
        do {
            while isOpen {
                if !isTrusted, let kind = reader.pendingKind, !PeerMessage.isAllowedBeforePairing(kind: kind) {
                    send(.unpair)
                    fail(afterWritingQueued: "not paired, yet it sent an activity message")
                    return false
                }
                var dropped: [PeerProtocolError] = []
                guard let message = try reader.next({ kind, body in
                    try PeerMessage(kind: kind, bodyBytes: body, droppedOffers: &dropped)
                }) else { break }
                droppedOffers += dropped.count
                dropped.forEach(onDroppedOffer)
                switch message {
                case .ping: send(.pong)
                case .pong: break
                default: onMessage(message)
                }
            }
        } catch {
            fail("protocol error: \(error)")
            return false
        }
        return isOpen
    }

    /// Writes the queue: what the socket takes now without a main-loop turn per TLS record,
    /// the rest asynchronously. ``onWritten`` runs when an asynchronous write has finished (a
    /// sender queuing more meanwhile finds the queue emptied as it goes).
    private func writeNext() {
        guard isOpen, !isWriting, !outgoing.isEmpty else { return }
        // A closing link writes asynchronously only, so that it closes (and ``onClose`` runs)
        // from the main loop rather than inside ``send(_:)``.
        let written = closingReason == nil ? writeReady() : 0
        if written == outgoing.count {
            emptyOutgoing()
            return
        }
        isWriting = true
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: outgoing.count - written, alignment: 1)
        outgoing.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[written...])) }
        emptyOutgoing()
        let box = Unmanaged.passRetained(WriteBox(link: self, buffer: buffer)).toOpaque()
        g_output_stream_write_all_async(g_io_stream_get_output_stream(stream), buffer.baseAddress, gsize(buffer.count),
                                        G_PRIORITY_DEFAULT, cancellable, { source, result, data in
            guard let data else { return }
            let box = Unmanaged<WriteBox>.fromOpaque(data).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let ok = g_output_stream_write_all_finish(UnsafeMutablePointer(OpaquePointer(source)), result, nil, &error)
            let message = error.map { String(cString: $0.pointee.message) }
            g_clear_error(&error)
            box.buffer.deallocate()
            MainActor.assumeIsolated { box.link.didWrite(ok != 0 ? nil : message ?? "write failed") }
        }, box)
    }

    /// Empties the queue, keeping its storage for the next frames unless a burst (a stream)
    /// made it large: a link at rest holds no more than it needs.
    private func emptyOutgoing() {
        outgoing.removeAll(keepingCapacity: outgoing.capacity <= Self.keptQueueCapacity)
    }

    private static let keptQueueCapacity = 512 * 1024

    /// Writes from the front of the queue what the socket takes without waiting; returns the
    /// count. A failure stops it, and the asynchronous write that follows meets it again and
    /// fails the link from the main loop, not inside ``send(_:)``. Each try passes all the
    /// rest, as TLS wants a write it could not finish to be tried again alike.
    private func writeReady() -> Int {
        guard let pollableOutput else { return 0 }
        return outgoing.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return 0 }
            var written = 0
            while written < bytes.count {
                var error: UnsafeMutablePointer<GError>?
                let count = g_pollable_output_stream_write_nonblocking(pollableOutput, base + written,
                                                                       gsize(bytes.count - written), cancellable, &error)
                g_clear_error(&error)
                guard count > 0 else { break }
                written += count
            }
            return written
        }
    }

    private func didWrite(_ error: String?) {
        isWriting = false
        if let error { return fail("write failed: \(error)") }
        if let closingReason, outgoing.isEmpty { return fail(closingReason) }
        writeNext()
        onWritten()
    }

    /// Makes sure the peer still answers, now that someone waits on it: sends a ping at once
    /// and closes the link (``onClose`` runs) when nothing at all arrives within `seconds`.
    ///
    /// The system notices a peer gone only after twice ``keepalive`` (a link that pings, after
    /// three times), and a peer that stopped answering while its machine still does (a frozen
    /// batond) not at all; a person who clicked Continue should not wait to learn the other
    /// device is gone. A probe already running keeps its deadline.
    public func probe(within seconds: Double) {
        // Behind a backlog (a stream to this peer on a slow link) the ping could not reach a
        // live peer in time; the system (or the link's pings) watches such a link.
        guard isOpen, probeTimer == 0, outgoing.count <= Self.probeBacklogLimit else { return }
        let sentAt = MonotonicClock.now
        lastPing = sentAt
        send(.ping)
        probeTimer = GLibSources.once(after: seconds) { [weak self] in
            guard let self else { return }
            probeTimer = 0
            if lastHeard < sentAt { fail("no answer to a ping within \(Self.seconds(seconds))") }
        }
    }

    /// The most bytes queued for the peer for a probe to be sent.
    static let probeBacklogLimit = 64 * 1024

    /// `seconds` as a person reads them ("3 s", "0.5 s").
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    private func checkKeepalive() {
        let now = MonotonicClock.now
        let quiet = now - lastHeard
        if quiet > keepalive * 3 {
            fail("no word from the peer for \(Int(quiet)) s")
        } else if quiet >= keepalive, now - lastPing >= keepalive / 2 {
            lastPing = now
            send(.ping)
        }
    }


    /// The IP address a connection comes from, alone and as `HOST:PORT`; empty when unknown
    /// or not an IP address (a Unix socket's).
    public static func remote(of connection: UnsafeMutablePointer<GSocketConnection>) -> (host: String, address: String) {
        guard let (host, port) = endpoint(g_socket_connection_get_remote_address(connection, nil)) else { return ("", "") }
        return (host, PeerAddress.format(host: host, port: UInt32(port)))
    }

    /// The IP address and port of a socket address, which this releases; `nil` when there is
    /// none or it is not an IP address.
    private static func endpoint(_ address: UnsafeMutablePointer<GSocketAddress>?) -> (host: String, port: UInt16)? {
        guard let address else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        guard g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(address)),
                                         g_inet_socket_address_get_type()) != 0 else { return nil }
        let inet = UnsafeMutablePointer<GInetSocketAddress>(OpaquePointer(address))
        guard let inetAddress = g_inet_socket_address_get_address(inet),
              let text = g_inet_address_to_string(inetAddress) else { return nil }
        defer { g_free(text) }
        return (String(cString: text), g_inet_socket_address_get_port(inet))
    }
}

/// A write in flight: the link and the bytes GLib reads until it calls back.
private final class WriteBox {
    let link: PeerLink
    let buffer: UnsafeMutableRawBufferPointer

    init(link: PeerLink, buffer: UnsafeMutableRawBufferPointer) {
        self.link = link
        self.buffer = buffer
    }
}
