import Foundation

/// Places for connections from strangers (TLS handshakes under way, links of unpaired
/// devices), counted per address, per network (/24 for IPv4, /64 for IPv6) and in all.
///
/// A newcomer is never refused for a full quota while an older place can be taken back: the
/// oldest evictable place of the same address goes first, then of the same network, then of
/// any. So a flood of idle connections only ever evicts itself, and a device that connects
/// now gets in.
struct ConnectionQuota<ID: Hashable> {
    struct Place {
        let id: ID
        let address: String
        let network: String
    }

    let total: Int
    let perAddress: Int
    let perNetwork: Int
    /// Oldest first.
    private(set) var places: [Place] = []

    init(total: Int, perAddress: Int, perNetwork: Int) {
        self.total = max(1, total)
        self.perAddress = max(1, perAddress)
        self.perNetwork = max(1, perNetwork)
    }

    var count: Int { places.count }

    func contains(_ id: ID) -> Bool { places.contains { $0.id == id } }

    /// Gives `id`, from `address`, a place, taking back places for it where a limit is met.
    ///
    /// - Parameter isEvictable: whether a place may be taken back (a link with a pairing under
    ///   way may not).
    /// - Returns: the ids whose places were taken back (their owners must close them), or
    ///   `nil`, changing nothing, when a limit is met and no place can be taken back.
    mutating func admit(_ id: ID, from address: String, isEvictable: (ID) -> Bool = { _ in true }) -> [ID]? {
        let network = NetworkPrefix.of(address)
        var remaining = places.filter { $0.id != id }
        var evicted: [ID] = []
        let limits: [(Int, (Place) -> Bool)] = [
            (perAddress, { $0.address == address }),
            (perNetwork, { $0.network == network }),
            (total, { _ in true }),
        ]
        for (limit, matches) in limits {
            while remaining.filter(matches).count >= limit {
                guard let index = remaining.firstIndex(where: { matches($0) && isEvictable($0.id) }) else { return nil }
                evicted.append(remaining.remove(at: index).id)
            }
        }
        remaining.append(Place(id: id, address: address, network: network))
        places = remaining
        return evicted
    }

    mutating func remove(_ id: ID) {
        places.removeAll { $0.id == id }
    }
}

/// The network an address belongs to, for counting connections per network: its /24 for
/// IPv4 (an IPv4-mapped IPv6 address counts as IPv4), its /64 for IPv6, the text itself for
/// anything else.
enum NetworkPrefix {
    static func of(_ address: String) -> String {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { "\($0[0]).\($0[1]).\($0[2]).0/24" }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return address }
        return withUnsafeBytes(of: &v6) { bytes in
            let mapped = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            if mapped { return "\(bytes[12]).\(bytes[13]).\(bytes[14]).0/24" }
            return stride(from: 0, to: 8, by: 2).map { String(format: "%02x%02x", bytes[$0], bytes[$0 + 1]) }
                .joined(separator: ":") + "::/64"
        }
    }
}
