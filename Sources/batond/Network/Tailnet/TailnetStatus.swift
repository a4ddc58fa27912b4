import BatonBus
import Foundation
import Glibc

/// What tailscaled's LocalAPI answers `GET /localapi/v0/status` with, as batond reads it: the
/// tailnet's other devices that may run batond — online, and Linux or of no OS named — with
/// the address to dial each at (its first Tailscale IPv4 address, else its first IPv6 one).
/// Phones, Windows and Macs are left out: batond does not run there.
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
        var peers: [Peer] = []
        for (_, value) in listed {
            guard let peer = value as? [String: Any] else { throw TailnetStatusError("a peer is not an object") }
            if let read = Self.dialable(peer) { peers.append(read) }
        }
        self.peers = isRunning ? Array(peers.sorted { ($0.address, $0.name) < ($1.address, $1.name) }.prefix(Self.maximumPeers)) : []
    }

    /// The peer as one to dial, when it is online, may run batond and has an address.
    private static func dialable(_ peer: [String: Any]) -> Peer? {
        guard peer["Online"] as? Bool == true else { return nil }
        if let system = peer["OS"] as? String, !system.isEmpty, system.lowercased() != "linux" { return nil }
        let addresses = (peer["TailscaleIPs"] as? [Any] ?? []).compactMap { $0 as? String }
        guard let address = addresses.first(where: { isAddress($0, family: AF_INET) }) ?? addresses.first(where: { isAddress($0, family: AF_INET6) })
        else { return nil }
        let dnsLabel = (peer["DNSName"] as? String)?.split(separator: ".").first.map(String.init)
        let raw = (peer["HostName"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? dnsLabel ?? address
        return Peer(name: cleaned(raw), address: address)
    }

    /// Whether `text` is an IP address of `family`, written as one (no host names, no ports).
    static func isAddress(_ text: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return text.count <= 45 && inet_pton(family, text, &buffer) == 1
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
