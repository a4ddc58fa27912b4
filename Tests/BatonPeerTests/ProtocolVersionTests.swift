import BatonBus
import BatonGLib
import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A peer protocol that can grow: the hello says which protocol and capabilities a device
/// has, a paired device's message of an unknown kind is skipped, and a device of the first
/// release (no capabilities) keeps offering and continuing with a paired batond, though it can
/// no longer pair with one.
@MainActor
final class ProtocolVersionTests: BatondPeerTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try startBatond()
    }

    /// Links as a device of the first release: its hello has no protocol and no capabilities.
    /// A paired one's link trusts batond from the start, as that device's would.
    private func connectAsFirstRelease(_ identity: DeviceIdentity? = nil) async throws -> TestPeer {
        let peer = try await connect(name: nil, identity: identity)
        peer.link.isTrusted = identity != nil
        let hello: [String: BusValue] = ["id": .string(peer.identity.deviceID), "name": .string("old"), "port": .uint32(0)]
        peer.link.send(frame: PeerFrame.encode(kind: 1, body: BusValue.serialize(record: hello)))
        let listed = await eventually { try self.device(peer.identity.deviceID)?["connected"] as? Bool == true }
        XCTAssertTrue(listed, "a first-release hello is accepted")
        return peer
    }

    private func pair(_ peer: TestPeer) async throws {
        let nonces = await peer.requestPairing()
        let codes = peer.revealAndConfirm(own: nonces.own, theirs: try XCTUnwrap(nonces.theirs))
        let shown = await eventually { try self.device(peer.identity.deviceID)?["pairing-code"] != nil }
        XCTAssertTrue(shown)
        peer.link.isTrusted = true
        XCTAssertEqual(try session.baton(["pair", "--confirm", peer.identity.deviceID, codes.ours]).status, 0)
        let paired = await eventually { try self.device(peer.identity.deviceID)?["paired"] as? Bool == true }
        XCTAssertTrue(paired)
    }

    func testTheHelloSaysTheProtocolAndCapabilities() async throws {
        let peer = try await connect(name: "new")
        let hello = await peer.first { if case .hello(let hello) = $0 { hello } else { nil } }
        XCTAssertEqual(hello?.protocolVersion, PeerProtocol.version)
        XCTAssertEqual(hello?.capabilities.contains(PeerCapability.typedPairingCodes), true)
        let listed = await eventually { try self.device(peer.identity.deviceID)?["protocol"] as? Int == 2 }
        XCTAssertTrue(listed)
        XCTAssertEqual(try device(peer.identity.deviceID)?["capabilities"] as? [String], PeerProtocol.capabilities.sorted())

        let old = try await connectAsFirstRelease()
        XCTAssertEqual(try device(old.identity.deviceID)?["protocol"] as? Int, 1)
        XCTAssertEqual(try device(old.identity.deviceID)?["capabilities"] as? [String], [])
    }

    func testAFirstReleaseDeviceCannotPairButAPairedOneKeepsOfferingAndContinuing() async throws {
        _ = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "draft"], name: "origin")
        XCTAssertNotNil(session.waitForActivity(titled: "Note: draft"))

        let old = try await connectAsFirstRelease()
        let asked = await old.requestPairing()
        XCTAssertNil(asked.theirs, "one-code pairing is no longer accepted")
        XCTAssertTrue(old.cancelReason?.contains("update Baton") == true, old.cancelReason ?? "no cancel")
        let refused = try session.baton(["pair", old.identity.deviceID])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("runs an older Baton"), refused.errorOutput)

        // Paired while it spoke this protocol, then back on the first release's hello.
        let current = try await connect(name: "upgraded")
        try await pair(current)
        current.link.close("downgrade")
        let downgraded = try await connectAsFirstRelease(current.identity)
        let offers = await downgraded.first { if case .offers(let offers) = $0, !offers.isEmpty { offers } else { nil } }
        let offer = try XCTUnwrap(offers?.first { $0.summary.title == "Note: draft" }, "a paired first-release device gets offers")
        downgraded.link.send(.fetch(request: 3, activityID: offer.id))
        let payload = await downgraded.first { if case .payload(3, let bytes, _, _) = $0 { bytes } else { nil } }
        XCTAssertFalse(try XCTUnwrap(payload, "and fetches payloads").isEmpty)
    }

    func testAPairedDevicesMessageOfAnUnknownKindIsSkipped() async throws {
        _ = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "draft"], name: "origin")
        XCTAssertNotNil(session.waitForActivity(titled: "Note: draft"))
        let peer = try await connect(name: "newer")
        try await pair(peer)
        let offers = await peer.first { if case .offers(let offers) = $0, !offers.isEmpty { offers } else { nil } }
        let offer = try XCTUnwrap(offers?.first)

        peer.link.send(frame: PeerFrame.encode(kind: 200, body: BusValue.serialize(record: ["future": .string("x")])))
        peer.link.send(.fetch(request: 9, activityID: offer.id))
        let payload = await peer.first { if case .payload(9, let bytes, _, _) = $0 { bytes } else { nil } }
        XCTAssertNotNil(payload, "the link stays up and answers after the unknown message")
        XCTAssertFalse(peer.isClosed)
    }

    func testAnUnpairedDevicesMessageOfAnUnknownKindClosesItsLink() async throws {
        let peer = try await connect(name: "stranger")
        let listed = await eventually { try self.device(peer.identity.deviceID)?["connected"] as? Bool == true }
        XCTAssertTrue(listed)
        peer.link.send(frame: PeerFrame.encode(kind: 200, body: BusValue.serialize(record: [:])))
        let closed = await eventually { peer.isClosed }
        XCTAssertTrue(closed, "before pairing, only the known pairing messages are accepted")
    }
}
