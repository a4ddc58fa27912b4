import Foundation

/// Places for connections from strangers (TLS handshakes under way, links of unpaired
/// devices), counted per address, per network (/24 for IPv4, /64 for IPv6) and in all.
///
/// A newcomer is never refused for a full quota while an older place can be taken back. When
/// its address is full, that address's oldest place goes; when its network or the whole
/// quota is full, a place of the largest holder goes (the network, then the address, with
/// the most places; its oldest). So a flood from one address only ever evicts itself, one
/// from many addresses evicts its own places before a device that holds one, and a device
/// that connects now gets in.
struct ConnectionQuota<ID: Hashable> {
    /// One place taken: whose, from which address and which network (/24, /64).
    struct Place {
        let id: ID
        let address: String
        let network: String
    }

    /// The most places in all, from one address, and from one network.
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
                guard let index = Self.largestHolder(in: remaining, matching: matches, isEvictable) else { return nil }
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

    /// The index of the place to take back among those `matches` accepts: an evictable place
    /// of the network, then the address, holding the most places, the oldest of them.
    private static func largestHolder(in places: [Place], matching matches: (Place) -> Bool,
                                      _ isEvictable: (ID) -> Bool) -> Int? {
        let matching = places.filter(matches)
        let perNetwork = Dictionary(grouping: matching, by: \.network).mapValues(\.count)
        let perAddress = Dictionary(grouping: matching, by: \.address).mapValues(\.count)
        let rank = { (place: Place) in (perNetwork[place.network] ?? 0, perAddress[place.address] ?? 0) }
        var best: (index: Int, rank: (Int, Int))?
        for (index, place) in places.enumerated() where matches(place) && isEvictable(place.id) {
            if let current = best, rank(place) <= current.rank { continue }
            best = (index, rank(place))
        }
        return best?.index
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
