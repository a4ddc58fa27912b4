import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A device that speaks the peer protocol from the test pairs with a real batond message by
/// message: the code needs both nonces, the reveal must match the commitment, confirmations
/// out of turn are cancelled, and a paired device may report as continued only what it fetched.
@MainActor
final class PairingProtocolTests: BatondPeerTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try startBatond()
    }

    /// Links to batond and says hello, as a device whose id sorts before batond's or after it
    /// when `sortingFirst` is given, and waits until batond lists it.
    private func introduce(sortingFirst: Bool? = nil) async throws -> TestPeer {
        let peer = try await connect(sortingFirst: sortingFirst)
        let introduced = await eventually { try self.device(peer.identity.deviceID) != nil }
        XCTAssertTrue(introduced, "batond lists the test's device after its hello")
        return peer
    }

    /// Sends a pairing request and returns batond's nonce, with the test's own.
    private func requestPairing(_ peer: TestPeer) async throws -> (own: [UInt8], theirs: [UInt8]) {
        let nonce = PairingNonce.make()
        peer.link.send(.pairRequest(commitment: PairingNonce.commitment(to: nonce)))
        let theirs = await peer.first { if case .pairAccept(let nonce) = $0 { nonce } else { nil } }
        return (nonce, try XCTUnwrap(theirs, "batond answers a pairing request with its nonce"))
    }

    /// Pairs `peer` as the requester, message by message, confirming on both sides; returns the code.
    @discardableResult
    private func pairThroughProtocol(_ peer: TestPeer) async throws -> String {
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
    private func pairFromBatond(with peer: TestPeer, _ meanwhile: () async throws -> Void) async throws -> String {
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
        let first = try await introduce(sortingFirst: true)
        var own: [UInt8] = []
        var theirs: [UInt8] = []
        let firstOutput = try await pairFromBatond(with: first) {
            let request = await first.first { if case .pairRequest = $0 { true } else { nil } }
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
        let second = try await introduce(sortingFirst: false)
        var commitment: [UInt8] = []
        var revealed: [UInt8]?
        let nonce = PairingNonce.make()
        let secondOutput = try await pairFromBatond(with: second) {
            let request = await second.first { if case .pairRequest(let c) = $0 { c } else { nil } }
            commitment = try XCTUnwrap(request, "baton pair sends a request")
            second.link.send(.pairRequest(commitment: PairingNonce.commitment(to: PairingNonce.make())))
            _ = await pumpMainLoop(timeout: 0.5) { false }
            XCTAssertFalse(second.received.contains { if case .pairAccept = $0 { true } else { false } },
                           "batond's own request goes first")
            second.link.send(.pairAccept(nonce: nonce))
            revealed = await second.first { if case .pairReveal(let n) = $0 { n } else { nil } }
        }
        let batondNonce = try XCTUnwrap(revealed, "batond reveals its nonce")
        XCTAssertEqual(PairingNonce.commitment(to: batondNonce), commitment, "the nonce it committed to")
        let secondCode = VerificationCode.make(requesterKey: second.link.peerPublicKeyInfo,
                                               responderKey: second.identity.publicKeyInfo,
                                               requesterNonce: batondNonce, responderNonce: nonce, shownBy: .requester)
        XCTAssertTrue(secondOutput.contains("Verification code: \(secondCode)"), secondOutput)
    }

    func testAPairedDeviceAskingToPairAgainIsNoLongerPaired() async throws {
        let peer = try await introduce()
        try await pairThroughProtocol(peer)
        _ = try await requestPairing(peer)
        let record = try XCTUnwrap(try device(peer.identity.deviceID))
        XCTAssertEqual(record["paired"] as? Bool, false, "it forgot this device, so this device forgets it: \(record)")
        XCTAssertNil(peer.closedBecause, "the link stays up for the new pairing")
    }

    func testTheCodeAppearsOnlyAfterTheRevealAndAFalseRevealPairsNothing() async throws {
        let peer = try await introduce()
        _ = try await requestPairing(peer)
        XCTAssertNil(try device(peer.identity.deviceID)?["pairing-code"], "no code before the requester reveals its nonce")

        peer.link.send(.pairReveal(nonce: PairingNonce.make()))
        let cancel = await peer.first { if case .pairCancel(let reason) = $0 { reason } else { nil } }
        XCTAssertNotNil(cancel, "a nonce other than the committed one cancels the pairing")
        let record = try XCTUnwrap(try device(peer.identity.deviceID))
        XCTAssertNil(record["pairing-code"])
        XCTAssertEqual(record["paired"] as? Bool, false)
        let confirm = try session.baton(["pair", "--confirm", peer.identity.deviceID, "000000"])
        XCTAssertEqual(confirm.status, 1)
        XCTAssertTrue(confirm.errorOutput.contains("no pairing"), confirm.errorOutput)
    }

    func testAConfirmationWithoutAPairingIsCancelledAndPinsNothing() async throws {
        let peer = try await introduce()
        peer.link.send(.pairConfirm)
        let cancel = await peer.first { if case .pairCancel(let reason) = $0 { reason } else { nil } }
        XCTAssertNotNil(cancel, "the other side must not pin this device alone")
        XCTAssertEqual(try device(peer.identity.deviceID)?["paired"] as? Bool, false)
    }

    func testAPairedDeviceMayReportAsContinuedOnlyWhatItFetched() async throws {
        let trace = session.root.appendingPathComponent("origin.trace.jsonl")
        _ = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "draft"], name: "origin",
                              environment: ["BATON_TRACE": trace.path])
        XCTAssertNotNil(session.waitForActivity(titled: "Note: draft"))

        let peer = try await introduce()
        try await pairThroughProtocol(peer)
        let offers = await peer.first { if case .offers(let offers) = $0, !offers.isEmpty { offers } else { nil } }
        let offer = try XCTUnwrap(offers?.first { $0.summary.title == "Note: draft" }, "paired now: offers arrive")
        XCTAssertEqual(try device(peer.identity.deviceID)?["paired"] as? Bool, true)

        peer.link.send(.continued(activityID: offer.id))
        _ = await pumpMainLoop(timeout: 1) { false }
        XCTAssertFalse(TraceFile.events(at: trace).contains { $0["event"] as? String == "was-continued" },
                       "an activity the device never fetched is not reported continued")
        XCTAssertNil(peer.closedBecause)

        peer.link.send(.fetch(request: 7, activityID: offer.id))
        let payload = await peer.first { if case .payload(7, let bytes, _, _) = $0 { bytes } else { nil } }
        XCTAssertFalse(try XCTUnwrap(payload, "a paired device gets the payload").isEmpty)
        peer.link.send(.continued(activityID: offer.id))
        let continued = await eventually {
            TraceFile.events(at: trace).contains { $0["event"] as? String == "was-continued" }
        }
        XCTAssertTrue(continued, "once fetched, the continuation reaches the origin app")
    }
}
