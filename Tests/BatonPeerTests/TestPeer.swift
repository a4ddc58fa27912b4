import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A device played by the test: its own identity, a TLS link to a real batond, and what
/// it received over it.
@MainActor
final class TestPeer {
    let identity: DeviceIdentity
    let link: PeerLink
    var received: [PeerMessage] = []
    var closedBecause: String?

    private init(identity: DeviceIdentity, link: PeerLink) {
        self.identity = identity
        self.link = link
    }

    /// Links to batond at `address` with a new identity (one whose id sorts before `deviceID`
    /// or after it, when `sortingFirst` is given) and, unless `name` is `nil`, says hello.
    static func connect(to address: String, name: String? = "gamma", sortingFirst: Bool? = nil,
                        relativeTo deviceID: String = "", identity given: DeviceIdentity? = nil) async throws -> TestPeer {
        var identity = try given ?? DeviceIdentity.generate()
        while let sortingFirst, (identity.deviceID < deviceID) != sortingFirst {
            identity = try DeviceIdentity.generate()
        }
        let tls = try PeerTLS(identity: identity)
        let link = try await Outcome { try await tls.connect(to: address) }.get()
        let peer = TestPeer(identity: identity, link: link)
        link.onMessage = { peer.received.append($0) }
        link.onClose = { peer.closedBecause = $0 }
        link.start()
        if let name { link.send(.hello(PeerHello(deviceID: identity.deviceID, name: name, port: 0))) }
        return peer
    }

    /// The first message received (from the `after`th on) that `match` accepts, waiting up
    /// to `timeout` seconds.
    func first<T>(after start: Int = 0, timeout: Double = 5, _ match: @escaping (PeerMessage) -> T?) async -> T? {
        var found: T?
        _ = await pumpMainLoop(timeout: timeout) {
            found = received.dropFirst(start).lazy.compactMap(match).first
            return found != nil || isClosed
        }
        return found
    }

    /// Whether batond closed the link (the test's side sees the peer close or a failed read).
    var isClosed: Bool { closedBecause != nil || !link.isOpen }

    /// Sends a pairing request, and returns batond's nonce with the test's own, or `nil` for
    /// the nonce when batond cancelled instead (with its reason in ``cancelReason``).
    func requestPairing() async -> (own: [UInt8], theirs: [UInt8]?) {
        let nonce = PairingNonce.make()
        let start = received.count
        link.send(.pairRequest(commitment: PairingNonce.commitment(to: nonce)))
        let answer: PeerMessage? = await first(after: start) { message in
            switch message {
            case .pairAccept, .pairCancel: message
            default: nil
            }
        }
        if case .pairAccept(let theirs)? = answer { return (nonce, theirs) }
        return (nonce, nil)
    }

    /// Why batond cancelled a pairing, if it did.
    var cancelReason: String? {
        received.lazy.compactMap { if case .pairCancel(let reason) = $0 { reason } else { nil } }.first
    }

    /// Reveals `nonce` and confirms this side, as an attacker that computes the codes itself
    /// would; returns the code this device would show (to be typed on batond's device) and
    /// the one batond shows.
    func revealAndConfirm(own: [UInt8], theirs: [UInt8]) -> (ours: String, batonds: String) {
        link.send(.pairReveal(nonce: own))
        link.send(.pairConfirm)
        let code = { (side: VerificationCode.Side) in
            VerificationCode.make(requesterKey: self.identity.publicKeyInfo, responderKey: self.link.peerPublicKeyInfo,
                                  requesterNonce: own, responderNonce: theirs, shownBy: side)
        }
        return (code(.requester), code(.responder))
    }

    /// Pairs with the batond of `session`, this device asking: it reveals and confirms, and
    /// the code it shows is typed into batond (`baton pair --confirm`), as its person would.
    func pair(with session: ServiceSession) async throws {
        let nonces = await requestPairing()
        let codes = revealAndConfirm(own: nonces.own, theirs: try XCTUnwrap(nonces.theirs, cancelReason ?? "no answer"))
        link.isTrusted = true
        let deviceID = identity.deviceID
        let record = { try TestPeer.device(deviceID, on: session) }
        guard await eventually({ try record()?["pairing-code"] as? String == codes.batonds }) else {
            throw FixtureError("batond never showed the pairing code of \(deviceID)")
        }
        let confirm = try session.baton(["pair", "--confirm", deviceID, codes.ours])
        guard confirm.status == 0 else { throw FixtureError("baton pair --confirm: \(confirm.errorOutput)") }
        guard await eventually({ try record()?["paired"] as? Bool == true }) else {
            throw FixtureError("batond never listed \(deviceID) as paired")
        }
    }

    /// `baton devices --json` on `session`: the record of `deviceID`.
    static func device(_ deviceID: String, on session: ServiceSession) throws -> [String: Any]? {
        (try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []).first { $0["id"] as? String == deviceID }
    }
}

/// Pumps the main loop (so the test's links read and write) until `condition` holds.
@MainActor
func eventually(timeout: Double = 10, _ condition: () throws -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        _ = await pumpMainLoop(timeout: 0.05) { false }
        if (try? condition()) == true { return true }
    }
    return false
}
