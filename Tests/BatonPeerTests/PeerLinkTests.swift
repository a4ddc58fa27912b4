@testable import BatonPeer
import CGLib
import ServiceFixtures
import XCTest

/// Real TLS links on loopback, through GIO and glib-networking.
@MainActor
final class PeerLinkTests: XCTestCase {
    override func tearDown() async throws {
        // Let closed links finish their cancelled reads and writes, so no source outlives the test.
        _ = await pumpMainLoop(timeout: 0.2) { false }
    }

    /// Two linked ends; `trusted` ends take every message, as links of paired devices do.
    private func linkedPair(keepalive: Double = 10, handshakeTimeout: Double = 10, trusted: Bool = true) async throws
        -> (server: PeerLink, client: PeerLink, serverIdentity: DeviceIdentity, clientIdentity: DeviceIdentity,
            listener: PeerListener) {
        let serverIdentity = try DeviceIdentity.generate()
        let clientIdentity = try DeviceIdentity.generate()
        let serverTLS = try PeerTLS(identity: serverIdentity)
        let clientTLS = try PeerTLS(identity: clientIdentity)
        serverTLS.keepalive = keepalive
        clientTLS.keepalive = keepalive
        clientTLS.handshakeTimeout = handshakeTimeout
        let listener = try PeerListener(host: "127.0.0.1", port: 0)
        XCTAssertNotEqual(listener.port, 0)
        var accepted: Outcome<PeerLink>?
        listener.onConnection = { connection in accepted = Outcome { try await serverTLS.accept(connection) } }
        let client = try await Outcome { try await clientTLS.connect(to: listener.address) }.get()
        guard await pumpMainLoop(until: { accepted != nil }), let accepted else {
            throw LinkError("nothing accepted")
        }
        let server = try await accepted.get()
        if trusted {
            server.isTrusted = true
            client.isTrusted = true
        }
        return (server, client, serverIdentity, clientIdentity, listener)
    }

    func testBothSidesSeeTheOthersCertificateAndMessagesFlow() async throws {
        let pair = try await linkedPair()
        XCTAssertEqual(pair.server.peerDeviceID, pair.clientIdentity.deviceID)
        XCTAssertEqual(pair.client.peerDeviceID, pair.serverIdentity.deviceID)
        XCTAssertEqual(pair.server.peerCertificateDER, pair.clientIdentity.certificateDER)
        XCTAssertEqual(pair.client.peerPublicKeyInfo, pair.serverIdentity.publicKeyInfo)
        XCTAssertTrue(pair.client.isOutgoing)
        XCTAssertFalse(pair.server.isOutgoing)
        XCTAssertEqual(pair.server.remoteHost, "127.0.0.1")

        var atServer: [PeerMessage] = []
        var atClient: [PeerMessage] = []
        pair.server.onMessage = { atServer.append($0) }
        pair.client.onMessage = { atClient.append($0) }
        pair.server.start()
        pair.client.start()
        let big = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        pair.client.send(.fetch(request: 1, activityID: "abc"))
        pair.client.send(.payload(request: 1, bytes: big))
        pair.server.send(.continued(activityID: "abc"))
        let pumped = await pumpMainLoop { atServer.count == 2 && atClient.count == 1 }
        XCTAssertTrue(pumped)
        XCTAssertEqual(atServer, [.fetch(request: 1, activityID: "abc"), .payload(request: 1, bytes: big)])
        XCTAssertEqual(atClient, [.continued(activityID: "abc")])
        pair.client.close("done")
        pair.server.close("done")
    }

    /// Bulk data outruns the socket: writes that would block are finished by GIO's
    /// asynchronous writes, reads drain what TLS has ready, and every byte arrives once, in
    /// order, also when the reader starts late.
    func testBulkDataThatFillsTheSocketArrivesWholeAndInOrder() async throws {
        let pair = try await linkedPair()
        let chunks = 80   // 80 × 200 KiB = 15.6 MiB, over the socket's buffers on loopback
        var received: [PeerMessage] = []
        var mismatches = 0
        pair.server.onMessage = { message in
            guard case .streamData(let number, let bytes) = message else { return }
            if bytes != Self.chunk(Int(number)) { mismatches += 1 }
            received.append(message)
        }
        var sent = 0
        func refill() {
            while sent < chunks, pair.client.queuedByteCount < 8 << 20 {
                XCTAssertTrue(pair.client.send(.streamData(stream: UInt32(sent), bytes: Self.chunk(sent))))
                sent += 1
            }
        }
        pair.client.onWritten = refill
        pair.client.start()
        refill()
        XCTAssertGreaterThan(pair.client.queuedByteCount, 0, "the socket took only part: the rest waits for GIO")
        // The reader starts late, so the writer meets a full socket.
        _ = await pumpMainLoop(timeout: 0.5) { false }
        pair.server.start()
        let pumped = await pumpMainLoop(timeout: 60) { received.count == chunks }
        XCTAssertTrue(pumped, "\(received.count) of \(chunks) arrived")
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(received.map { if case .streamData(let number, _) = $0 { Int(number) } else { -1 } }, Array(0..<chunks))
        XCTAssertTrue(pair.client.isOpen && pair.server.isOpen)
        pair.client.close("done")
        pair.server.close("done")
    }

    /// Chunk `number` of the bulk test: 200 KiB of a pattern, with the number at both ends.
    private static func chunk(_ number: Int) -> [UInt8] {
        var chunk = pattern
        withUnsafeBytes(of: UInt32(number).bigEndian) { number in
            chunk.replaceSubrange(0..<4, with: number)
            chunk.replaceSubrange(chunk.count - 4..<chunk.count, with: number)
        }
        return chunk
    }

    private static let pattern = (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    func testGarbageClosesTheLink() async throws {
        let pair = try await linkedPair()
        var reason: String?
        var received: [PeerMessage] = []
        pair.server.onClose = { reason = $0 }
        pair.server.onMessage = { received.append($0) }
        pair.server.start()
        pair.client.start()
        pair.client.send(frame: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let pumped = await pumpMainLoop { reason != nil }
        XCTAssertTrue(pumped)
        XCTAssertTrue(reason?.contains("protocol error") ?? false, reason ?? "")
        XCTAssertEqual(received, [])
        XCTAssertFalse(pair.server.isOpen)
        var clientReason: String?
        pair.client.onClose = { clientReason = $0 }
        let clientSawClose = await pumpMainLoop { clientReason != nil }
        XCTAssertTrue(clientSawClose, "the client sees the link close")
    }

    func testAnUntrustedLinkAnswersActivityMessagesWithUnpairAndCloses() async throws {
        let pair = try await linkedPair(trusted: false)
        XCTAssertFalse(pair.server.isTrusted, "links start untrusted")
        XCTAssertFalse(pair.client.isTrusted, "links start untrusted")
        var serverReceived: [PeerMessage] = []
        var serverClosed: String?
        pair.server.onMessage = { serverReceived.append($0) }
        pair.server.onClose = { serverClosed = $0 }
        pair.server.start()
        pair.client.start()
        pair.client.send(.pairConfirm)
        pair.client.send(frame: Array(repeating: 0, count: 10))
        _ = await pumpMainLoop(timeout: 5) { serverClosed != nil }
        XCTAssertTrue(serverClosed?.contains("protocol error") ?? false, "garbage after a frame: \(serverClosed ?? "")")
        XCTAssertEqual(serverReceived, [.pairConfirm], "messages allowed before pairing arrive")

        let second = try await linkedPair(trusted: false)
        var received: [PeerMessage] = []
        var closed: String?
        second.server.onMessage = { received.append($0) }
        second.server.onClose = { closed = $0 }
        var answers: [PeerMessage] = []
        var clientSawClose = false
        second.client.onMessage = { answers.append($0) }
        second.client.onClose = { _ in clientSawClose = true }
        second.client.isTrusted = true
        second.server.start()
        second.client.start()
        second.client.send(.payload(request: 1, bytes: Array(repeating: 7, count: 100_000)))
        _ = await pumpMainLoop(timeout: 5) { closed != nil && clientSawClose }
        XCTAssertTrue(closed?.contains("not paired") ?? false, closed ?? "")
        XCTAssertEqual(received, [], "the activity message was never delivered")
        XCTAssertEqual(answers, [.unpair], "the peer is told it is not paired here before the link closes")
    }

    /// A direct link leaves the watch over the peer to the system: TCP keepalive after the
    /// keepalive's seconds of quiet, probes every fifth of it, the link dropped when nothing
    /// came for twice that.
    func testADirectLinkHasTheSystemWatchThePeer() async throws {
        let pair = try await linkedPair(keepalive: 10)
        for link in [pair.server, pair.client] {
            XCTAssertFalse(link.pingsToKeepAlive)
            let socket = g_socket_connection_get_socket(link.socketConnection)
            func option(_ level: Int32, _ name: Int32) -> Int32 {
                var value: gint = -1
                var error: UnsafeMutablePointer<GError>?
                XCTAssertNotEqual(g_socket_get_option(socket, gint(level), gint(name), &value, &error), 0)
                g_clear_error(&error)
                return value
            }
            XCTAssertEqual(option(SOL_SOCKET, SO_KEEPALIVE), 1)
            XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_KEEPIDLE), 10)
            XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_KEEPINTVL), 2)
            XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_KEEPCNT), 5)
            XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_USER_TIMEOUT), 20_000)
        }
        pair.client.close("done")
        pair.server.close("done")
    }

    /// A direct link sends no pings of its own: a peer that answers none, its machine still
    /// acknowledging what it is sent, keeps its link (a peer gone is the system's to notice).
    func testADirectLinkDoesNotPingASilentPeer() async throws {
        let pair = try await linkedPair(keepalive: 0.2)
        var reason: String?
        pair.server.onClose = { reason = $0 }
        pair.server.start()
        // The client never reads, so it would never answer a ping.
        _ = await pumpMainLoop(timeout: 1.5) { reason != nil }
        XCTAssertNil(reason)
        XCTAssertTrue(pair.server.isOpen)
        pair.client.close("done")
        pair.server.close("done")
    }

    func testASilentPeerThroughARelayIsDroppedByPings() async throws {
        let pair = try await linkedPair(keepalive: 0.2)
        var reason: String?
        pair.server.onClose = { reason = $0 }
        pair.server.isRelayed = true
        XCTAssertTrue(pair.server.pingsToKeepAlive)
        pair.server.start()
        // The client never reads, so it never answers the server's pings.
        let pumped = await pumpMainLoop(timeout: 5) { reason != nil }
        XCTAssertTrue(pumped)
        XCTAssertTrue(reason?.contains("no word") ?? false, reason ?? "")
        pair.client.close("done")
    }

    func testAnsweredPingsKeepALinkThroughARelayUp() async throws {
        let pair = try await linkedPair(keepalive: 0.2)
        var closed = false
        pair.server.onClose = { _ in closed = true }
        pair.client.onClose = { _ in closed = true }
        pair.server.isRelayed = true
        pair.client.isRelayed = true
        pair.server.start()
        pair.client.start()
        _ = await pumpMainLoop(timeout: 1.5) { closed }
        XCTAssertFalse(closed)
        XCTAssertTrue(pair.server.isOpen && pair.client.isOpen)
        pair.client.close("done")
        pair.server.close("done")
    }

    func testADialedLinkOutlivesTheConnectTimeout() async throws {
        // The connect timeout (1 s here) must not stay on the socket: only the keepalive
        // (5 s) decides when a quiet link is dead.
        let pair = try await linkedPair(keepalive: 5, handshakeTimeout: 1)
        var closed: String?
        pair.client.onClose = { closed = $0 }
        pair.server.onClose = { closed = $0 }
        pair.client.start()
        pair.server.start()
        _ = await pumpMainLoop(timeout: 2.5) { closed != nil }
        XCTAssertNil(closed)
        pair.client.close("done")
        pair.server.close("done")
    }

    func testAPlainTCPClientGetsNoLink() async throws {
        let serverTLS = try PeerTLS(identity: try DeviceIdentity.generate())
        serverTLS.handshakeTimeout = 1
        let listener = try PeerListener(host: "127.0.0.1", port: 0)
        var accepted: Outcome<PeerLink>?
        listener.onConnection = { connection in accepted = Outcome { try await serverTLS.accept(connection) } }
        // Bytes that are not a TLS ClientHello.
        let plain = Outcome { () async throws -> Int32 in
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = listener.port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(socket, $0, 16) }
            }
            _ = "hello\r\n".withCString { write(socket, $0, 7) }
            return socket
        }
        let socket = try await plain.get()
        defer { Foundation.close(socket) }
        let pumped = await pumpMainLoop { accepted != nil }
        XCTAssertTrue(pumped)
        do {
            _ = try await accepted?.get(timeout: 5)
            XCTFail("a plain TCP client got a link")
        } catch {
            XCTAssertTrue(error is LinkError, "\(error)")
        }
    }
}
