import BatonBus
import BatonGLib
import CGLib
import Foundation

/// Baton's side of a relay server (Syncthing's relay protocol): this device joins the relay
/// so that paired devices that cannot dial it reach it there (``join(accepting:allowing:)``),
/// and reaches a device joined to it (``connect(toCertificate:)``). The relay only splices
/// two TCP sessions: Baton's pinned TLS runs inside, end to end, so the relay sees
/// ciphertext and cannot pass for either device. The relay's own certificate is pinned too,
/// to the id in its address.
@MainActor
public final class RelayClient {
    public let relay: RelayAddress
    private let tls: PeerTLS
    /// Seconds each step (connect, handshake, answer, session join) may take.
    public var timeout: Double = 10
    /// Seconds before joining again after the relay connection ended; doubled after each
    /// failure, up to a minute.
    public var retryDelay: Double = 2
    /// Sessions this device asked for that the relay lost, since it was made.
    public private(set) var sessionsLost = 0
    /// Seconds the dialing end waits before joining a session, after the other end was invited.
    static let dialerJoinDelay = 0.005
    /// Sessions asked for by one ``connect(toCertificate:)`` before it gives up.
    public static let sessionAttempts = 3
    /// Seconds the other end of a session has to speak after this end joined it: a session
    /// the relay lost stays silent.
    public var answerTimeout: Double = 4

    /// Told of what happens to the membership, for logs and `baton doctor`.
    public var onStatus: (String) -> Void = { _ in }
    /// What ``onStatus`` was told last.
    public private(set) var lastStatus: String?
    /// Whether this device is joined to the relay now.
    public private(set) var isJoined = false
    private var membership: RelayChannel?
    private var leaving = false
    private var joining: Task<Void, Never>?
    /// Sessions being joined now: at most ``maximumSessions``, whatever the relay sends.
    private var sessions = 0
    /// When a device was last turned away, so that a flood of them is logged once a minute.
    private var lastTurnedAway: Date?
    /// The most sessions joined at once.
    public static let maximumSessions = 4
    /// Seconds without a word from the relay (it pings every minute by default) after which
    /// this device joins again: a relay gone silently is not taken for one still there.
    public var silenceLimit: Double = 180

    public init(relay: RelayAddress, tls: PeerTLS) {
        self.relay = relay
        self.tls = tls
    }

    /// Reaches the device whose certificate is `certificateDER` through the relay, where it
    /// must be joined now, and completes Baton's handshake with it inside the session.
    ///
    /// A session the relay lost (it turned this end away, or the other end never answered
    /// within ``answerTimeout``) is asked for again, up to ``sessionAttempts`` in all:
    /// `strelaysrv` loses one when both ends join at the same moment, which this end makes
    /// rare by joining 5 ms after the other was invited.
    ///
    /// - Throws: ``LinkError`` naming what failed: the relay, the device not joined to it,
    ///   the session, the handshake.
    public func connect(toCertificate certificateDER: [UInt8]) async throws -> PeerLink {
        var attempt = 1
        while true {
            do {
                return try await connectOnce(toCertificate: certificateDER)
            } catch let lost as LostSession {
                sessionsLost += 1
                guard attempt < Self.sessionAttempts else {
                    throw LinkError("\(lost.reason) (\(attempt) sessions asked for, each lost)")
                }
                attempt += 1
            }
        }
    }

    /// A session that the relay lost, which a new one may replace.
    private struct LostSession: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    private func connectOnce(toCertificate certificateDER: [UInt8]) async throws -> PeerLink {
        let channel = try await RelayChannel.protocolMode(to: relay, certificate: tls.certificate, timeout: timeout)
        let relayHost = PeerLink.remote(of: channel.connection).host
        try await channel.send(.connectRequest(id: SyncthingDeviceID.digest(ofCertificate: certificateDER)))
        let answer = try await channel.receive(timeout: timeout)
        channel.close()
        guard case .sessionInvitation(_, let key, let address, let port, let serverSocket) = answer else {
            throw LinkError(Self.describe(answer, asking: "to reach the device"))
        }
        let host = try await RelaySessionAddress.host(invited: address, port: port, relay: relay, connected: relayHost)
        return try await session(key: key, host: host, port: port, serverSocket: serverSocket)
    }

    /// Joins the relay and stays joined (answering its pings, joining again after it goes)
    /// until ``leave()``. Each device the relay brings whose certificate digest `allowing`
    /// accepts has its session joined and Baton's handshake run, then goes to `accepting`;
    /// others are turned away before any session is joined.
    public func join(accepting: @escaping @MainActor (PeerLink) -> Void,
                     allowing: @escaping @MainActor ([UInt8]) -> Bool) {
        leave()
        leaving = false
        joining = Task { @MainActor in
            var delay = retryDelay
            while !leaving && !Task.isCancelled {
                do {
                    try await stayJoined(accepting: accepting, allowing: allowing)
                } catch {
                    // A membership that held was a good one: the wait starts over after it.
                    if isJoined { delay = retryDelay }
                    isJoined = false
                    guard !leaving else { break }
                    report("not joined to \(relay.host):\(relay.port): \(error); joining again in \(Int(delay)) s")
                }
                guard !leaving else { break }
                await GLibSources.sleep(seconds: delay)
                delay = min(delay * 2, 60)
            }
            isJoined = false
        }
    }

    private func report(_ status: String) {
        lastStatus = status
        onStatus(status)
    }

    /// Leaves the relay.
    public func leave() {
        leaving = true
        joining?.cancel()
        joining = nil
        membership?.close()
        membership = nil
        isJoined = false
    }

    private func stayJoined(accepting: @escaping @MainActor (PeerLink) -> Void,
                            allowing: @escaping @MainActor ([UInt8]) -> Bool) async throws {
        let channel = try await RelayChannel.protocolMode(to: relay, certificate: tls.certificate, timeout: timeout)
        membership = channel
        defer { if membership === channel { membership = nil } }
        let relayHost = PeerLink.remote(of: channel.connection).host
        try await channel.send(.joinRelayRequest)
        let answer = try await channel.receive(timeout: timeout)
        guard case .response(0, _) = answer else { throw LinkError(Self.describe(answer, asking: "to join")) }
        isJoined = true
        report("joined \(relay.host):\(relay.port)")
        while !leaving {
            switch try await channel.receive(timeout: silenceLimit) {
            case .ping:
                try await channel.send(.pong)
            case .sessionInvitation(let from, let key, let address, let port, let serverSocket):
                guard allowing(from) else {
                    if lastTurnedAway.map({ Date().timeIntervalSince($0) >= 60 }) ?? true {
                        lastTurnedAway = Date()
                        report("turned away a device that is not paired (\(SyncthingDeviceID.text(of: from))); more are logged at most once a minute")
                    }
                    continue
                }
                guard sessions < Self.maximumSessions else { continue }
                sessions += 1
                Task { @MainActor in
                    defer { sessions -= 1 }
                    do {
                        let host = try await RelaySessionAddress.host(invited: address, port: port, relay: relay,
                                                                      connected: relayHost)
                        accepting(try await session(key: key, host: host, port: port, serverSocket: serverSocket))
                    } catch {
                        report("a session through \(relay.host):\(relay.port) failed: \(error)")
                    }
                }
            case .relayFull:
                throw LinkError("the relay is full")
            case let other:
                throw LinkError(Self.describe(other, asking: "nothing"))
            }
        }
    }

    /// Joins the session of an invitation at `host:port` (the relay's own host,
    /// ``RelaySessionAddress``) and runs Baton's handshake inside: as the TLS server when the
    /// invitation says so (the joined device), else as the client.
    private func session(key: [UInt8], host: String, port: UInt16, serverSocket: Bool) async throws -> PeerLink {
        // Both ends are invited at the same moment, and strelaysrv turns away an end that
        // comes while it is still taking the other one in: the dialer lets the joined
        // device, usually, be first.
        if !serverSocket { await GLibSources.sleep(seconds: Self.dialerJoinDelay) }
        let channel = try await RelayChannel.sessionMode(host: host, port: port, timeout: timeout)
        try await channel.send(.joinSessionRequest(key: key))
        let answer = try await channel.receive(timeout: timeout)
        guard case .response(0, _) = answer else {
            channel.close()
            throw LostSession(reason: Self.describe(answer, asking: "to join the session"))
        }
        // From here the bytes are the other device's: Baton's own TLS, pinned as on a LAN.
        // The link's socket reaches only the relay: the link pings the device (isRelayed).
        let connection = channel.handOff()
        if serverSocket {
            let link = try await tls.accept(connection, firstBytesWithin: answerTimeout)
            link.isRelayed = true
            return link
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let control = IncomingHandshake()
        do {
            let link = try await tls.connect(over: connection, control: control, answerWithin: answerTimeout)
            link.isRelayed = true
            return link
        } catch where control.wentUnanswered {
            throw LostSession(reason: "the device did not answer within \(PeerTLS.seconds(answerTimeout)) in the relay's session")
        }
    }

    /// An invitation's address as text: `nil` when empty or unspecified (then the relay's own).
    static func host(_ address: [UInt8]) -> String? {
        var bytes = address
        if bytes.count == 16, bytes[0..<12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] { bytes = Array(bytes[12...]) }
        guard bytes.count == 4 || bytes.count == 16, bytes.contains(where: { $0 != 0 }) else { return nil }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// What an unexpected answer means.
    static func describe(_ message: RelayMessage, asking what: String) -> String {
        switch message {
        case .response(1, _): return "the relay does not have the device now (asked \(what))"
        // strelaysrv 1.19 turns away an end that joins a session while the relay is not
        // waiting for it (the other end joining at the same moment): the session is lost.
        case .response(2, _) where what == "to join the session": return "the relay turned this end of the session away as already connected"
        case .response(2, _): return "the relay has this device joined already"
        case .response(let code, let text): return "the relay refused \(what): \(code) \(Excerpt.of(text))"
        case .relayFull: return "the relay is full"
        default: return "the relay answered \(what) with an unexpected message"
        }
    }
}
