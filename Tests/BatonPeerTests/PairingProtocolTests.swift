import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A device that speaks the peer protocol from the test pairs with a real batond message by
/// message: the code needs both nonces, the reveal must match the commitment, confirmations
/// out of turn are cancelled, and a paired device may report as continued only what it fetched.
@MainActor
final class PairingProtocolTests: XCTestCase {
    private var session: ServiceSession!
    private var deviceID = ""
    private var address = ""
    private var peers: [Peer] = []

    override func setUp() async throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        session = try ServiceSession()
        try session.startBus()
        try session.startBatond(["--name", "alpha"])
        let status = try DevicePair.status(of: session)
        deviceID = status["device-id"] as? String ?? ""
        address = status["listen"] as? String ?? ""
    }

    override func tearDown() async throws {
        if testRun?.hasSucceeded == false { session?.printLogs() }
        for peer in peers { peer.link.close("test over") }
        _ = await pumpMainLoop(timeout: 0.2) { false }
        session?.tearDown()
    }

    /// The test's device: its identity, its link to batond and what it received.
    private final class Peer {
        let identity: DeviceIdentity
        let link: PeerLink
        var received: [PeerMessage] = []
        var closedBecause: String?

        init(identity: DeviceIdentity, link: PeerLink) {
            self.identity = identity
            self.link = link
        }
    }

    /// Links to batond and says hello, as a device whose id sorts before batond's or after it
    /// when `sortingFirst` is given.
    private func connect(sortingFirst: Bool? = nil) async throws -> Peer {
        var identity = try DeviceIdentity.generate()
        while let sortingFirst, (identity.deviceID < deviceID) != sortingFirst {
            identity = try DeviceIdentity.generate()
        }
        let tls = try PeerTLS(identity: identity)
        let link = try await Outcome { try await tls.connect(to: self.address) }.get()
        let peer = Peer(identity: identity, link: link)
        peers.append(peer)
        link.onMessage = { peer.received.append($0) }
        link.onClose = { peer.closedBecause = $0 }
        link.start()
        link.send(.hello(PeerHello(deviceID: identity.deviceID, name: "gamma", port: 0)))
        let introduced = await eventually { try self.device(identity.deviceID) != nil }
        XCTAssertTrue(introduced, "batond lists the test's device after its hello")
        return peer
    }

    /// The first message `peer` received that `match` accepts, waiting up to 5 s for it.
    private func first<T>(_ peer: Peer, _ match: @escaping (PeerMessage) -> T?) async -> T? {
        var found: T?
        _ = await pumpMainLoop(timeout: 5) {
            found = peer.received.lazy.compactMap(match).first
            return found != nil
        }
        return found
    }

    /// Pumps the main loop (so the test's link reads and writes) until `condition` holds.
    private func eventually(timeout: Double = 10, _ condition: () throws -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            _ = await pumpMainLoop(timeout: 0.05) { false }
            if (try? condition()) == true { return true }
        }
        return false
    }

    /// `baton devices --json`: the record of `id`.
    private func device(_ id: String) throws -> [String: Any]? {
        (try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []).first { $0["id"] as? String == id }
    }

    /// Sends a pairing request and returns batond's nonce, with the test's own.
    private func requestPairing(_ peer: Peer) async throws -> (own: [UInt8], theirs: [UInt8]) {
        let nonce = PairingNonce.make()
        peer.link.send(.pairRequest(commitment: PairingNonce.commitment(to: nonce)))
        let theirs = await first(peer) { if case .pairAccept(let nonce) = $0 { nonce } else { nil } }
        return (nonce, try XCTUnwrap(theirs, "batond answers a pairing request with its nonce"))
    }

    /// Pairs `peer` as the requester, message by message, confirming on both sides; returns the code.
    @discardableResult
    private func pairThroughProtocol(_ peer: Peer) async throws -> String {
        let nonces = try await requestPairing(peer)
        peer.link.send(.pairReveal(nonce: nonces.own))
        let code = { (side: VerificationCode.Side) in
            VerificationCode.make(requesterKey: peer.identity.publicKeyInfo, responderKey: peer.link.peerPublicKeyInfo,
                                  requesterNonce: nonces.own, responderNonce: nonces.theirs, shownBy: side)
        }
        var shown: String?
        let revealed = await eventually {
            shown = try self.device(peer.identity.deviceID)?["pairing-code"] as? String
            return shown != nil
        }
        XCTAssertTrue(revealed)
        XCTAssertEqual(shown, code(.responder), "batond shows its code computed from both keys and both nonces")
        let confirm = try session.baton(["pair", "--confirm", peer.identity.deviceID, code(.requester)])
        XCTAssertEqual(confirm.status, 0, confirm.errorOutput)
        peer.link.send(.pairConfirm)
        peer.link.isTrusted = true
        let paired = await eventually { try self.device(peer.identity.deviceID)?["paired"] as? Bool == true }
        XCTAssertTrue(paired, "both confirmed: batond pins the device")
        return code(.requester)
    }

    /// `baton pair DEVICE` in the background (it waits for the other device's nonce), with
    /// the main loop pumped until it exits; its output.
    private func pairFromBatond(with peer: Peer, _ meanwhile: () async throws -> Void) async throws -> String {
        let command = try session.start(ServiceSession.product("baton"), ["pair", peer.identity.deviceID],
                                        name: "pair-\(peers.count)")
        try await meanwhile()
        let exited = await eventually(timeout: 15) { !command.isRunning }
        XCTAssertTrue(exited, "baton pair returns once both nonces are known")
        XCTAssertEqual(command.waitForExit(timeout: 1), 0, command.log)
        return command.log
    }

    func testRequestsThatCrossAreSettledByTheLowerDeviceID() async throws {
        // The test's device sorts first: its request wins, and batond answers it.
        let first = try await connect(sortingFirst: true)
        var own: [UInt8] = []
        var theirs: [UInt8] = []
        let firstOutput = try await pairFromBatond(with: first) {
            let request = await self.first(first) { if case .pairRequest = $0 { true } else { nil } }
            XCTAssertNotNil(request, "baton pair sends a request")
            (own, theirs) = try await requestPairing(first)
            first.link.send(.pairReveal(nonce: own))
        }
        let firstCode = VerificationCode.make(requesterKey: first.identity.publicKeyInfo,
                                              responderKey: first.link.peerPublicKeyInfo,
                                              requesterNonce: own, responderNonce: theirs, shownBy: .responder)
        XCTAssertTrue(firstOutput.contains("Verification code: \(firstCode)"),
                      "the lower id's request decides the code: \(firstOutput)")

        // batond sorts first: it ignores the test device's request and reveals its own nonce.
        let second = try await connect(sortingFirst: false)
        var commitment: [UInt8] = []
        var revealed: [UInt8]?
        let nonce = PairingNonce.make()
        let secondOutput = try await pairFromBatond(with: second) {
            let request = await self.first(second) { if case .pairRequest(let c) = $0 { c } else { nil } }
            commitment = try XCTUnwrap(request, "baton pair sends a request")
            second.link.send(.pairRequest(commitment: PairingNonce.commitment(to: PairingNonce.make())))
            _ = await pumpMainLoop(timeout: 0.5) { false }
            XCTAssertFalse(second.received.contains { if case .pairAccept = $0 { true } else { false } },
                           "batond's own request goes first")
            second.link.send(.pairAccept(nonce: nonce))
            revealed = await self.first(second) { if case .pairReveal(let n) = $0 { n } else { nil } }
        }
        let batondNonce = try XCTUnwrap(revealed, "batond reveals its nonce")
        XCTAssertEqual(PairingNonce.commitment(to: batondNonce), commitment, "the nonce it committed to")
        let secondCode = VerificationCode.make(requesterKey: second.link.peerPublicKeyInfo,
                                               responderKey: second.identity.publicKeyInfo,
                                               requesterNonce: batondNonce, responderNonce: nonce, shownBy: .requester)
        XCTAssertTrue(secondOutput.contains("Verification code: \(secondCode)"), secondOutput)
    }

    func testAPairedDeviceAskingToPairAgainIsNoLongerPaired() async throws {
        let peer = try await connect()
        try await pairThroughProtocol(peer)
        _ = try await requestPairing(peer)
        let record = try XCTUnwrap(try device(peer.identity.deviceID))
        XCTAssertEqual(record["paired"] as? Bool, false, "it forgot this device, so this device forgets it: \(record)")
        XCTAssertNil(peer.closedBecause, "the link stays up for the new pairing")
    }

    func testTheCodeAppearsOnlyAfterTheRevealAndAFalseRevealPairsNothing() async throws {
        let peer = try await connect()
        _ = try await requestPairing(peer)
        XCTAssertNil(try device(peer.identity.deviceID)?["pairing-code"], "no code before the requester reveals its nonce")

        peer.link.send(.pairReveal(nonce: PairingNonce.make()))
        let cancel = await first(peer) { if case .pairCancel(let reason) = $0 { reason } else { nil } }
        XCTAssertNotNil(cancel, "a nonce other than the committed one cancels the pairing")
        let record = try XCTUnwrap(try device(peer.identity.deviceID))
        XCTAssertNil(record["pairing-code"])
        XCTAssertEqual(record["paired"] as? Bool, false)
        let confirm = try session.baton(["pair", "--confirm", peer.identity.deviceID, "000000"])
        XCTAssertEqual(confirm.status, 1)
        XCTAssertTrue(confirm.errorOutput.contains("no pairing"), confirm.errorOutput)
    }

    func testAConfirmationWithoutAPairingIsCancelledAndPinsNothing() async throws {
        let peer = try await connect()
        peer.link.send(.pairConfirm)
        let cancel = await first(peer) { if case .pairCancel(let reason) = $0 { reason } else { nil } }
        XCTAssertNotNil(cancel, "the other side must not pin this device alone")
        XCTAssertEqual(try device(peer.identity.deviceID)?["paired"] as? Bool, false)
    }

    func testAPairedDeviceMayReportAsContinuedOnlyWhatItFetched() async throws {
        let trace = session.root.appendingPathComponent("origin.trace.jsonl")
        _ = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "draft"], name: "origin",
                              environment: ["BATON_TRACE": trace.path])
        XCTAssertNotNil(session.waitForActivity(titled: "Note: draft"))

        let peer = try await connect()
        try await pairThroughProtocol(peer)
        let offers = await first(peer) { if case .offers(let offers) = $0, !offers.isEmpty { offers } else { nil } }
        let offer = try XCTUnwrap(offers?.first { $0.summary.title == "Note: draft" }, "paired now: offers arrive")
        XCTAssertEqual(try device(peer.identity.deviceID)?["paired"] as? Bool, true)

        peer.link.send(.continued(activityID: offer.id))
        _ = await pumpMainLoop(timeout: 1) { false }
        XCTAssertFalse(TraceFile.events(at: trace).contains { $0["event"] as? String == "was-continued" },
                       "an activity the device never fetched is not reported continued")
        XCTAssertNil(peer.closedBecause)

        peer.link.send(.fetch(request: 7, activityID: offer.id))
        let payload = await first(peer) { if case .payload(7, let bytes, _) = $0 { bytes } else { nil } }
        XCTAssertFalse(try XCTUnwrap(payload, "a paired device gets the payload").isEmpty)
        peer.link.send(.continued(activityID: offer.id))
        let continued = await eventually {
            TraceFile.events(at: trace).contains { $0["event"] as? String == "was-continued" }
        }
        XCTAssertTrue(continued, "once fetched, the continuation reaches the origin app")
    }
}
