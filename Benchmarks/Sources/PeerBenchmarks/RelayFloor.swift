import BatonPeer
import Foundation

/// The floor through a relay: the bare Baton TLS request/response of `measureFloor` (the same
/// messages, the same payload size) between two ends that reach each other only through the
/// relay, each where its device reaches it (`serverRelay` for A's side, `clientRelay` for B's:
/// the relay itself, or each side's forwarder).
///
///   new session:  what a batond's dial through the relay does, the other end joined already
///                 (as a batond stays): TLS to the relay, ask it for the device, both ends join
///                 the session it offers, Baton's handshake inside, then one round trip
///   open session: one round trip on a link made so, kept open
///
/// strelaysrv refuses one of two devices joining a session at nearly the same instant
/// ("already connected": it hands each connection to the session without waiting, and misses
/// one that comes before it is ready for the next), which on loopback happens to one session
/// in ten or more. Such a dial is not a sample: it is made again, and counted in `retried`.
/// When the dialer was refused, `RelayClient` asked for another session (`sessionsLost`
/// counts it) and the far end waits for its first bytes in one of its 4 session places: it is
/// replaced. When the far end was refused, the dial would wait for an answer: it is left to
/// fail on its own.
@MainActor
func measureRelayFloor(serverRelay: RelayAddress, clientRelay: RelayAddress,
                       payloadSize: Int) async throws -> (cold: [Double], warm: [Double], retried: Int) {
    let clientIdentity = try DeviceIdentity.generate()
    let clientTLS = try PeerTLS(identity: clientIdentity)
    // Dials left to fail on their own end soon.
    clientTLS.handshakeTimeout = 2
    let client = RelayClient(relay: clientRelay, tls: clientTLS)
    let dialer = SyncthingDeviceID.digest(ofCertificate: clientIdentity.certificateDER)
    let response = PeerMessage.payload(request: 1, bytes: Array(repeating: 0x5a, count: payloadSize))
    var server = try await RelayFloorEnd(relay: serverRelay, answering: dialer, with: response)
    defer { server.leave() }

    var retried = 0
    /// A new link, and when the dial that made it started.
    func connect() async throws -> (link: PeerLink, start: Date) {
        while true {
            let start = Date()
            let lost = client.sessionsLost
            let link = await server.dial(from: client)
            if let link, client.sessionsLost == lost {
                // Trusted, as between paired devices (full frame size, activity messages).
                link.isTrusted = true
                link.start()
                return (link, start)
            }
            link?.close("a session was lost")
            retried += 1
            guard retried <= 2 * samples else { throw BenchmarkFailure("dials through the relay keep failing") }
            server.leave()
            server = try await RelayFloorEnd(relay: serverRelay, answering: dialer, with: response)
        }
    }
    var cold: [Double] = []
    for _ in 0..<samples {
        let (link, start) = try await connect()
        try await floorRoundTrip(link)
        cold.append(Date().timeIntervalSince(start))
        link.close("done")
    }
    let link = try await connect().link
    defer { link.close("done") }
    var warm: [Double] = []
    for _ in 0..<samples {
        let start = Date()
        try await floorRoundTrip(link)
        warm.append(Date().timeIntervalSince(start))
    }
    return (cold, warm, retried)
}

/// The floor's far end: an identity of its own joined to the relay, taking sessions from the
/// dialer only and answering each request on them with `response`.
@MainActor
private final class RelayFloorEnd {
    let identity: DeviceIdentity
    private let client: RelayClient
    /// Told when the relay client reports trouble (a session refused, the relay lost).
    private var trouble: () -> Void = {}

    init(relay: RelayAddress, answering dialer: [UInt8], with response: PeerMessage) async throws {
        identity = try DeviceIdentity.generate()
        client = RelayClient(relay: relay, tls: try PeerTLS(identity: identity))
        client.join(accepting: { link in
            link.isTrusted = true
            link.onMessage = { _ in link.send(response) }
            link.start()
        }, allowing: { $0 == dialer })
        do {
            try await waitFor("the floor's far end joined to the relay") { client.isJoined }
        } catch {
            client.leave()
            throw error
        }
        // It reported joining as it joined: anything it reports from now on is trouble.
        client.onStatus = { [weak self] _ in self?.trouble() }
    }

    /// Dials this end through `dialer`: the link, or `nil` when the dial failed or this end
    /// reported trouble first (then the dial is left to fail on its own).
    func dial(from dialer: RelayClient) async -> PeerLink? {
        let outcome = DialOutcome()
        return await withCheckedContinuation { continuation in
            outcome.continuation = continuation
            trouble = { outcome.finish(nil) }
            let certificate = identity.certificateDER
            Task { @MainActor in outcome.finish(try? await dialer.connect(toCertificate: certificate)) }
        }
    }

    func leave() {
        trouble = {}
        client.leave()
    }
}

/// The first outcome of a dial; a link that comes after it is closed.
@MainActor
private final class DialOutcome {
    var continuation: CheckedContinuation<PeerLink?, Never>?

    func finish(_ link: PeerLink?) {
        guard let continuation else {
            link?.close("given up")
            return
        }
        self.continuation = nil
        continuation.resume(returning: link)
    }
}
