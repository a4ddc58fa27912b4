import BatonPeer
import CGLib
import ServiceFixtures
import XCTest

/// Two devices linked through a real relay server (Debian's `strelaysrv` 1.19, private, on
/// loopback): one joins, the other reaches it, and Baton's pinned TLS runs inside the spliced
/// session, so each side sees the other's own certificate and messages flow. A device that is
/// not allowed is turned away before any session; a relay whose certificate is not the one its
/// id names is refused.
@MainActor
final class RelayClientTests: XCTestCase {
    private var relay: RelayServer!

    override func setUp() async throws {
        if let missing = RelayServer.missingRequirement { throw XCTSkip(missing) }
        relay = try RelayServer()
        try relay.start(port: UInt16.random(in: 30_000...40_000))
    }

    override func tearDown() async throws {
        relay?.remove()
        _ = await pumpMainLoop(timeout: 0.2) { false }
    }

    func testTwoDevicesLinkThroughTheRelayWithTheirOwnTLS() async throws {
        let address = try RelayAddress(relay.address)
        let joinedIdentity = try DeviceIdentity.generate()
        let callerIdentity = try DeviceIdentity.generate()
        let joined = RelayClient(relay: address, tls: try PeerTLS(identity: joinedIdentity))
        let caller = RelayClient(relay: address, tls: try PeerTLS(identity: callerIdentity))
        var accepted: PeerLink?
        var statuses: [String] = []
        joined.onStatus = { statuses.append($0) }
        joined.join(accepting: { accepted = $0 }, allowing: { $0 == SyncthingDeviceID.digest(ofCertificate: callerIdentity.certificateDER) })
        let isJoined = await pumpMainLoop { joined.isJoined }
        XCTAssertTrue(isJoined, "\(statuses) \(relay.log)")

        let link = try await Outcome { try await caller.connect(toCertificate: joinedIdentity.certificateDER) }.get()
        let arrived = await pumpMainLoop { accepted != nil }
        XCTAssertTrue(arrived, "\(statuses)")
        let other = try XCTUnwrap(accepted)
        XCTAssertEqual(link.peerDeviceID, joinedIdentity.deviceID, "the caller sees the joined device's own certificate")
        XCTAssertEqual(other.peerDeviceID, callerIdentity.deviceID)
        XCTAssertTrue(link.isOutgoing)
        link.isTrusted = true
        other.isTrusted = true
        var received: [PeerMessage] = []
        other.onMessage = { received.append($0) }
        var closed: [String] = []
        other.onClose = { closed.append("joined side: \($0)") }
        link.onClose = { closed.append("caller: \($0)") }
        link.onMessage = { received.append($0) }
        link.start()
        other.start()
        link.send(.fetch(request: 1, activityID: "through-the-relay"))
        other.send(.continued(activityID: "back"))
        let flowed = await pumpMainLoop { received.count == 2 }
        XCTAssertTrue(flowed, "\(received) \(closed)")
        link.close("done")
        other.close("done")
        joined.leave()
    }

    func testADeviceNotAllowedIsTurnedAwayAndAnUnjoinedOneIsNotFound() async throws {
        let address = try RelayAddress(relay.address)
        let joinedIdentity = try DeviceIdentity.generate()
        let joined = RelayClient(relay: address, tls: try PeerTLS(identity: joinedIdentity))
        var statuses: [String] = []
        joined.onStatus = { statuses.append($0) }
        var accepted = 0
        joined.join(accepting: { _ in accepted += 1 }, allowing: { _ in false })
        let isJoined = await pumpMainLoop { joined.isJoined }
        XCTAssertTrue(isJoined)
        let stranger = RelayClient(relay: address, tls: try PeerTLS(identity: try DeviceIdentity.generate()))
        stranger.timeout = 3
        do {
            _ = try await Outcome { try await stranger.connect(toCertificate: joinedIdentity.certificateDER) }.get()
            XCTFail("a stranger linked")
        } catch {}
        let turnedAway = await pumpMainLoop { statuses.contains { $0.contains("turned away a device that is not paired") } }
        XCTAssertTrue(turnedAway, "\(statuses)")
        XCTAssertEqual(accepted, 0)

        let absent = try DeviceIdentity.generate()
        do {
            _ = try await Outcome { try await stranger.connect(toCertificate: absent.certificateDER) }.get()
            XCTFail("reached a device that is not joined")
        } catch {
            XCTAssertTrue("\(error)".contains("does not have the device"), "\(error)")
        }
        joined.leave()
    }

    func testARelayWhoseCertificateIsNotItsIDIsRefused() async throws {
        let real = try RelayAddress(relay.address)
        let wrongID = SyncthingDeviceID.text(of: [UInt8](repeating: 7, count: 32))
        let impostor = try RelayAddress("relay://\(real.host):\(real.port)/?id=\(wrongID)")
        let client = RelayClient(relay: impostor, tls: try PeerTLS(identity: try DeviceIdentity.generate()))
        do {
            _ = try await Outcome { try await client.connect(toCertificate: try DeviceIdentity.generate().certificateDER) }.get()
            XCTFail("an impostor relay was used")
        } catch {
            XCTAssertTrue("\(error)".contains("is not the one its id names"), "\(error)")
        }
    }
}
