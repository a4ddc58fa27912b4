@testable import BatonPeer
import CGLib
import ServiceFixtures
import XCTest

/// Two devices linked through a real relay server (Debian's `strelaysrv` 1.19, private, on
/// loopback): one joins, the other reaches it, and Baton's pinned TLS runs inside the spliced
/// session, so each side sees the other's own certificate and messages flow. A device that is
/// not allowed is turned away before any session; a relay whose certificate is not the one its
/// id names is refused. A session the relay lost (its other end never joined) is asked for
/// again, a bounded number of times.
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
        XCTAssertTrue(link.isRelayed && other.isRelayed, "both ends know the link runs through the relay")
        XCTAssertTrue(link.pingsToKeepAlive && other.pingsToKeepAlive, "their sockets reach only the relay: they ping")
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

    func testASessionWhoseOtherEndNeverJoinedIsAskedForAgain() async throws {
        let address = try RelayAddress(relay.address)
        let joinedIdentity = try DeviceIdentity.generate()
        let joined = try HandDrivenMember(relay: address, identity: joinedIdentity, ignoring: 1)
        try await joined.join()
        let callerIdentity = try DeviceIdentity.generate()
        let caller = RelayClient(relay: address, tls: try PeerTLS(identity: callerIdentity))
        caller.answerTimeout = 1
        let started = Date()
        let link = try await Outcome { try await caller.connect(toCertificate: joinedIdentity.certificateDER) }.get()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(link.peerDeviceID, joinedIdentity.deviceID)
        XCTAssertEqual(joined.invitations, 2, "the lost session was asked for again, once")
        XCTAssertGreaterThanOrEqual(elapsed, 1, "the first session was given its answer time")
        XCTAssertLessThan(elapsed, 5)
        let accepted = await pumpMainLoop { joined.link != nil }
        XCTAssertTrue(accepted, "\(joined.failures)")
        XCTAssertEqual(joined.link?.peerDeviceID, callerIdentity.deviceID)
        link.close("done")
        joined.leave()
    }

    func testADeviceWhoseSessionsAreAllLostIsGivenUpSayingWhy() async throws {
        let address = try RelayAddress(relay.address)
        let joinedIdentity = try DeviceIdentity.generate()
        let joined = try HandDrivenMember(relay: address, identity: joinedIdentity, ignoring: .max)
        try await joined.join()
        let caller = RelayClient(relay: address, tls: try PeerTLS(identity: try DeviceIdentity.generate()))
        caller.answerTimeout = 0.5
        do {
            _ = try await Outcome { try await caller.connect(toCertificate: joinedIdentity.certificateDER) }.get()
            XCTFail("linked to a device that never joined its sessions")
        } catch {
            XCTAssertEqual("\(error)", "the device did not answer within 0.5 s in the relay's session (3 sessions asked for, each lost)")
        }
        XCTAssertEqual(joined.invitations, RelayClient.sessionAttempts)
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

    /// A relay whose invitations name another host (here `strelaysrv -ext-address`, as any
    /// relay could send) has neither end connect there: each refuses, saying why, and the
    /// host named sees no connection.
    func testAnInvitationToAnotherHostIsRefusedAndNothingConnectsThere() async throws {
        let elsewhere = try CountingListener(host: "127.0.0.9")
        defer { elsewhere.stop() }
        relay.stop()
        let port = UInt16.random(in: 30_000...40_000)
        try relay.start(port: port, extAddress: "127.0.0.9:\(elsewhere.port)")
        // strelaysrv writes its URI with the external address: the relay is at its own.
        let address = try RelayAddress(relay.address.replacingOccurrences(of: "127.0.0.9:\(elsewhere.port)", with: "127.0.0.1:\(port)"))
        XCTAssertEqual(address.port, port)
        let joinedIdentity = try DeviceIdentity.generate()
        let joined = RelayClient(relay: address, tls: try PeerTLS(identity: joinedIdentity))
        joined.timeout = 3
        var statuses: [String] = []
        joined.onStatus = { statuses.append($0) }
        var accepted = 0
        joined.join(accepting: { _ in accepted += 1 }, allowing: { _ in true })
        let isJoined = await pumpMainLoop { joined.isJoined }
        XCTAssertTrue(isJoined, "\(statuses) \(relay.log)")
        let caller = RelayClient(relay: address, tls: try PeerTLS(identity: try DeviceIdentity.generate()))
        caller.timeout = 3
        do {
            _ = try await Outcome { try await caller.connect(toCertificate: joinedIdentity.certificateDER) }.get()
            XCTFail("linked through a session on another host")
        } catch {
            XCTAssertTrue("\(error)".contains("invited this device to a session at 127.0.0.9:\(elsewhere.port), which is not the relay's own "
                                              + "address (127.0.0.1): refused"), "\(error)")
        }
        let refused = await pumpMainLoop { statuses.contains { $0.contains("which is not the relay's own address") } }
        XCTAssertTrue(refused, "the joined device refused too: \(statuses)")
        _ = await pumpMainLoop(timeout: 0.5) { false }
        XCTAssertEqual(elsewhere.accepted, 0, "nothing connected to the host the relay named")
        XCTAssertEqual(accepted, 0)
        joined.leave()
    }

    /// A relay written by its name is followed to its own address, as the connection to it
    /// reached it or as the name resolves.
    func testAnInvitationToTheRelaysOwnAddressIsFollowedWhenTheRelayIsWrittenByName() async throws {
        let numeric = try RelayAddress(relay.address)
        let address = try RelayAddress(relay.address.replacingOccurrences(of: "127.0.0.1", with: "localhost"))
        XCTAssertEqual(address.host, "localhost")
        let joinedIdentity = try DeviceIdentity.generate()
        let joined = RelayClient(relay: address, tls: try PeerTLS(identity: joinedIdentity))
        var accepted: PeerLink?
        joined.join(accepting: { accepted = $0 }, allowing: { _ in true })
        let isJoined = await pumpMainLoop { joined.isJoined }
        XCTAssertTrue(isJoined)
        let caller = RelayClient(relay: address, tls: try PeerTLS(identity: try DeviceIdentity.generate()))
        let link = try await Outcome { try await caller.connect(toCertificate: joinedIdentity.certificateDER) }.get()
        XCTAssertEqual(link.peerDeviceID, joinedIdentity.deviceID)
        let arrived = await pumpMainLoop { accepted != nil }
        XCTAssertTrue(arrived)
        let resolved = try await Outcome {
            try await RelaySessionAddress.host(invited: [127, 0, 0, 1], port: numeric.port, relay: address, connected: "::1")
        }.get()
        XCTAssertEqual(resolved, "127.0.0.1", "an address the relay's name resolves to is its own")
        let empty = try await Outcome {
            try await RelaySessionAddress.host(invited: [0, 0, 0, 0], port: numeric.port, relay: numeric, connected: "127.0.0.1")
        }.get()
        XCTAssertEqual(empty, "127.0.0.1", "an unspecified address is the relay's own")
        link.close("done")
        accepted?.close("done")
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

/// A device joined to the relay by hand, which lets its first `ignoring` invitations go, as
/// when the relay turned its end of each session away, and joins the sessions after.
@MainActor
private final class HandDrivenMember {
    private let relay: RelayAddress
    private let tls: PeerTLS
    private let ignoring: Int
    private var membership: RelayChannel?
    private(set) var invitations = 0
    private(set) var link: PeerLink?
    private(set) var failures: [String] = []

    init(relay: RelayAddress, identity: DeviceIdentity, ignoring: Int) throws {
        self.relay = relay
        tls = try PeerTLS(identity: identity)
        self.ignoring = ignoring
    }

    func join() async throws {
        let channel = try await Outcome { [relay, tls] in
            try await RelayChannel.protocolMode(to: relay, certificate: tls.certificate, timeout: 5)
        }.get()
        membership = channel
        try await Outcome { try await channel.send(.joinRelayRequest) }.get()
        let answer = try await Outcome { try await channel.receive(timeout: 5) }.get()
        guard case .response(0, _) = answer else { throw LinkError("not joined: \(answer)") }
        Task { @MainActor in
            while let message = try? await channel.receive() {
                guard case .sessionInvitation(_, let key, let address, let port, _) = message else { continue }
                invitations += 1
                if invitations > ignoring { await joinSession(key: key, address: address, port: port) }
            }
        }
    }

    private func joinSession(key: [UInt8], address: [UInt8], port: UInt16) async {
        do {
            let session = try await RelayChannel.sessionMode(host: RelayClient.host(address) ?? relay.host, port: port, timeout: 5)
            try await session.send(.joinSessionRequest(key: key))
            guard case .response(0, _) = try await session.receive(timeout: 5) else { throw LinkError("session refused") }
            link = try await tls.accept(session.handOff(), firstBytesWithin: 5)
        } catch {
            failures.append("\(error)")
        }
    }

    func leave() {
        membership?.close()
        link?.close("done")
    }
}

/// A TCP listener that counts the connections it accepts (and closes them), on a thread of
/// its own: a host a relay must not send devices to.
private final class CountingListener: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let lock = NSLock()
    private var count = 0
    private var stopped = false

    init(host: String) throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard listening >= 0, bound == 0, listen(listening, 16) == 0 else { throw LinkError("cannot listen on \(host)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        descriptor = listening
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopped }) {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                let connection = accept(descriptor, nil, nil)
                if connection >= 0 {
                    lock.withLock { count += 1 }
                    close(connection)
                }
            }
        }
    }

    var accepted: Int { lock.withLock { count } }

    func stop() {
        lock.withLock { stopped = true }
        usleep(100_000)
        close(descriptor)
    }
}
