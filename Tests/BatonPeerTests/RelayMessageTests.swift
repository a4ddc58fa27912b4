import BatonPeer
import XCTest

/// Syncthing's relay protocol as Baton writes and reads it, against bytes a real
/// `strelaysrv` 1.19 sent and took, and the text form of device ids against one it printed.
final class RelayMessageTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }

    func testMessagesAreWrittenAsTheRelayReadsThem() throws {
        XCTAssertEqual(try RelayMessage.ping.encoded(), hex("9e79bc40 00000000 00000000"))
        XCTAssertEqual(try RelayMessage.joinRelayRequest.encoded(), hex("9e79bc40 00000002 00000000"))
        XCTAssertEqual(try RelayMessage.response(code: 0, message: "success").encoded(),
                       hex("9e79bc40 00000004 00000010 00000000 00000007 73756363657373 00"))
        let id = [UInt8](repeating: 0xAB, count: 32)
        XCTAssertEqual(try RelayMessage.connectRequest(id: id).encoded(), hex("9e79bc40 00000005 00000024 00000020") + id)
        XCTAssertThrowsError(try RelayMessage.connectRequest(id: [UInt8](repeating: 1, count: 33)).encoded())
    }

    func testEveryMessageReadsBackAsWritten() throws {
        let messages: [RelayMessage] = [
            .ping, .pong, .joinRelayRequest, .relayFull, .joinSessionRequest(key: [1, 2, 3]),
            .response(code: 2, message: "already connected"), .connectRequest(id: Array(repeating: 7, count: 32)),
            .sessionInvitation(from: Array(repeating: 1, count: 32), key: Array(repeating: 2, count: 32),
                               address: [127, 0, 0, 1], port: 22067, serverSocket: true),
        ]
        for message in messages {
            XCTAssertEqual(try RelayMessage(decoding: message.encoded()), message)
        }
        // A newer relay's join, with an empty token, reads as a join.
        XCTAssertEqual(try RelayMessage(decoding: hex("9e79bc40 00000002 00000004 00000000")), .joinRelayRequest)
    }

    func testHostileBytesAreRefusedSayingWhy() {
        let cases: [(String, String)] = [
            ("9e79bc41 00000000 00000000", "wrong magic"),
            ("9e79bc40 00000009 00000000", "unknown message type 9"),
            ("9e79bc40 00000000 00000401", "over 1024"),
            ("9e79bc40 00000005 00000004 00000020", "cut short"),
            ("9e79bc40 00000005 00000004 00000040", "over 32"),
            ("9e79bc40 00000005 00000008 00000002 0102", "announces 8 bytes"),
            ("9e79bc40 00000000 00000004 00000000", "bytes after"),
            ("9e79bc40 0000", "at least 12"),
        ]
        for (bytes, reason) in cases {
            XCTAssertThrowsError(try RelayMessage(decoding: hex(bytes)), bytes) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(bytes): \(error)")
            }
        }
    }

    func testDeviceIDsReadAndWriteAsSyncthingsDo() throws {
        // strelaysrv printed this id for a certificate whose DER SHA-256 is this digest.
        let text = "OOAYO63-YDKIQGI-B5YC7JV-4RADKSP-5ZVDZUN-V6BWMXW-ARB5GKE-EEQ4BQI"
        let digest = hex("7381877b781a910307b817d35e440354bb9a8f346d7c1b32e0887a6510848703")
        XCTAssertEqual(try SyncthingDeviceID.digest(of: text), digest)
        XCTAssertEqual(SyncthingDeviceID.text(of: digest), text)
        XCTAssertEqual(try SyncthingDeviceID.digest(of: text.lowercased()), digest, "lowercase is read too")
        XCTAssertThrowsError(try SyncthingDeviceID.digest(of: "OOAYO63-YDKIQGI-B5YC7JV-4RADKSP-5ZVDZUN-V6BWMXW-ARB5GKE-EEQ4BQJ"),
                             "a mistyped last character fails its check")
        XCTAssertThrowsError(try SyncthingDeviceID.digest(of: "OOAYO63"))

        let relay = try RelayAddress("relay://127.0.0.1:22067/?id=\(text)&pingInterval=5s&networkTimeout=12s")
        XCTAssertEqual(relay.host, "127.0.0.1")
        XCTAssertEqual(relay.port, 22067)
        XCTAssertEqual(relay.certificateDigest, digest)
        XCTAssertEqual(relay.description, "relay://127.0.0.1:22067/?id=\(text)")
        for bad in ["http://127.0.0.1:22067/?id=\(text)", "relay://127.0.0.1/?id=\(text)", "relay://127.0.0.1:22067/",
                    "relay://:22067/?id=\(text)", "relay://127.0.0.1:22067/?id=NOTANID",
                    // Found by FuzzRelayMessage: an escaped control character in the host, which
                    // read back as another address.
                    "relay://-0.%10.78.0.3:22067/?id=\(text)", "relay://relay%20.example.org:22067/?id=\(text)"] {
            XCTAssertThrowsError(try RelayAddress(bad), bad)
        }
        let named = try RelayAddress("relay://relay-1.example.org:22067/?id=\(text)")
        XCTAssertEqual(try RelayAddress(named.description), named, "a host name reads back")
        let six = try RelayAddress("relay://[fe80::1]:22067/?id=\(text)")
        XCTAssertEqual(six.host, "fe80::1")
        XCTAssertEqual(try RelayAddress(six.description), six, "an IPv6 address reads back")
    }
}
