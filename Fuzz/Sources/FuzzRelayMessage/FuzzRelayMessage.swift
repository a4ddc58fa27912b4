import BatonPeer
import Foundation
import FuzzSupport

// Covers what a relay server (or whoever answers in its place) sends batond: messages of
// Syncthing's relay protocol (`RelayMessage(decoding:)`), and relay addresses as a person
// writes them in batond.conf (`RelayAddress`, `SyncthingDeviceID`). Errors must be
// `RelayProtocolError`; a message read must read back the same from its own encoding.

@main
enum RelayMessageHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        _ = Fuzz.refused(as: RelayProtocolError.self, "reading") {
            let message = try RelayMessage(decoding: bytes)
            let again = try RelayMessage(decoding: try message.encoded())
            Fuzz.require(again == message, "a message that does not read back: \(message)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if let address = Fuzz.refused(as: RelayProtocolError.self, "reading an address", { try RelayAddress(text) }) {
            Fuzz.require(address.certificateDigest.count == 32, "a relay id that is not 32 bytes")
            Fuzz.require((try? RelayAddress(address.description)) == address, "a relay address that does not read back: \(address)")
        }
    }
}

extension RelayMessageHarness {
    /// Each message as the encoder writes it, and a relay address.
    static func seeds() -> [String: [UInt8]] {
        let messages: [String: RelayMessage] = [
            "ping": .ping, "join": .joinRelayRequest, "full": .relayFull,
            "response": .response(code: 1, message: "not found"),
            "connect": .connectRequest(id: Array(repeating: 0x5A, count: 32)),
            "invitation": .sessionInvitation(from: Array(repeating: 1, count: 32), key: Array(repeating: 2, count: 32),
                                             address: [10, 78, 0, 3], port: 22067, serverSocket: true),
            "session": .joinSessionRequest(key: Array(repeating: 3, count: 32)),
        ]
        var seeds = messages.compactMapValues { try? $0.encoded() }
        seeds["address.txt"] = Array("relay://10.78.0.3:22067/?id=OOAYO63-YDKIQGI-B5YC7JV-4RADKSP-5ZVDZUN-V6BWMXW-ARB5GKE-EEQ4BQI&pingInterval=1m0s".utf8)
        // Found by this harness: an escaped control character in the host.
        seeds["regression-escaped-host"] = Array("relay://-0.%10.78.0.3:22067/?id=OOAYO63-YDKIQGI-B5YC7JV-4RADKSP-5ZVDZUN-V6BWMXW-ARB5GKE-EEQ4BQI&pingInterval=1m0s".utf8)
        return seeds
    }
}
