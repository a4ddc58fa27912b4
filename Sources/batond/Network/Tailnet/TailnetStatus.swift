import BatonBus
import Foundation
import Glibc

/// What tailscaled's LocalAPI answers `GET /localapi/v0/status` with, as batond reads it: the
/// user's other devices on the tailnet that may run batond — online, of the same user as this
/// one (`UserID`), not shared in from another tailnet (`ShareeNode`), and Linux or of no OS
/// named — with the address to dial each at (its first Tailscale IPv4 address, else its first
/// IPv6 one). Phones, Windows and Macs are left out: batond does not run there.
///
/// The answer comes from another process: anything that is not the documented shape is an
/// error, and names are cleaned before anyone logs or shows them.
struct TailnetStatus: Equatable, Sendable {
    struct Peer: Equatable, Sendable {
        /// Its host name on the tailnet, cleaned and at most ``TailnetStatus/maximumNameLength`` characters.
        let name: String
        /// A Tailscale IP address, IPv4 or IPv6, without a port.
        let address: String
    }

    /// Whether tailscaled is connected to its tailnet (`BackendState` `Running`); when it is
    /// not, its peers are not reachable and ``peers`` is empty.
    let isRunning: Bool
    /// The peers to dial, by address; at most ``maximumPeers``.
    let peers: [Peer]

    static let maximumPeers = 256
    static let maximumNameLength = 63
    /// The largest answer read: a tailnet of a few hundred devices answers well under this.
    static let maximumSize = 4 << 20

    /// Reads the JSON of a status answer.
    ///
    /// - Throws: ``TailnetStatusError`` when it is not a JSON object with a `BackendState`
    ///   string, or its `Peer` is not an object of objects.
    init(json: [UInt8]) throws(TailnetStatusError) {
        guard json.count <= Self.maximumSize else { throw TailnetStatusError("the status is over \(Self.maximumSize) bytes") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)), let status = object as? [String: Any] else {
            throw TailnetStatusError("the status is not a JSON object")
        }
        guard let state = status["BackendState"] as? String else { throw TailnetStatusError("the status has no BackendState") }
        isRunning = state == "Running"
        let listed: [String: Any]
        switch status["Peer"] {
        case nil, is NSNull: listed = [:]
        case let peers as [String: Any]: listed = peers
        default: throw TailnetStatusError("the status's Peer is not an object")
        }
        // Only the user's own devices: a tailnet may hold other people's, and nodes shared in.
        let user = ((status["Self"] as? [String: Any])?["UserID"] as? NSNumber)?.int64Value
        var peers: [Peer] = []
        for (_, value) in listed {
            guard let peer = value as? [String: Any] else { throw TailnetStatusError("a peer is not an object") }
            if let read = Self.dialable(peer, user: user) { peers.append(read) }
        }
        self.peers = isRunning ? Array(peers.sorted { ($0.address, $0.name) < ($1.address, $1.name) }.prefix(Self.maximumPeers)) : []
    }

    /// The peer as one to dial, when it is online, may run batond and has an address.
    private static func dialable(_ peer: [String: Any], user: Int64?) -> Peer? {
        guard peer["Online"] as? Bool == true, peer["ShareeNode"] as? Bool != true else { return nil }
        if let user, (peer["UserID"] as? NSNumber)?.int64Value != user { return nil }
        if let system = peer["OS"] as? String, !system.isEmpty, system.lowercased() != "linux" { return nil }
        let addresses = (peer["TailscaleIPs"] as? [Any] ?? []).compactMap { $0 as? String }
        guard let address = addresses.first(where: { isAddress($0, family: AF_INET) }) ?? addresses.first(where: { isAddress($0, family: AF_INET6) })
        else { return nil }
        let dnsLabel = (peer["DNSName"] as? String)?.split(separator: ".").first.map(String.init)
        let raw = (peer["HostName"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? dnsLabel ?? address
        return Peer(name: cleaned(raw), address: address)
    }

    /// Whether `text` is an IP address of `family`, written as one (no host names, no ports,
    /// nothing after a NUL, which `inet_pton` would not see).
    static func isAddress(_ text: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return text.utf8.count <= 45 && text.utf8.allSatisfy(isAddressCharacter) && inet_pton(family, text, &buffer) == 1
    }

    /// Hexadecimal digits, `.` and `:`.
    private static func isAddressCharacter(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) || byte == 0x2E || byte == 0x3A
    }

    /// `text` without control or bidirectional characters, at most ``maximumNameLength`` characters.
    private static func cleaned(_ text: String) -> String {
        String(UnsafeCharacters.cleaned(text).prefix(maximumNameLength))
    }
}

/// Why a tailscaled status answer could not be read.
struct TailnetStatusError: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}
