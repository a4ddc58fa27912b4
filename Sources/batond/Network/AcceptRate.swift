/// How fast batond takes in connections, per source address and per network (/24 for IPv4,
/// /64 for IPv6, ``NetworkPrefix``): a token bucket each, checked when a connection is
/// accepted, before any TLS work, so that a flood of connections is closed at once for the
/// cost of an accept, not of a handshake.
///
/// A connection is let in when its address's, its network's and the bucket of all
/// connections each hold a token, and then takes one from each; one refused takes none, so an
/// address over its rate does not use up its network's. Connections from a paired device's
/// last address are counted against their address only, not against their network or all (a
/// flood from a neighbour, or from many networks, cannot keep a paired device out).
///
/// Times are seconds on any monotonic clock. The buckets it remembers are bounded: past
/// ``maximumKeys``, full buckets (as good as new ones) are forgotten, then the ones used
/// longest ago.
struct AcceptRate {
    /// A bucket: `burst` tokens at most, refilled at `rate` a second.
    struct Limit {
        let burst: Double
        let rate: Double
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// The rate for one address, for one network (/24, /64), and for all.
    let perAddress: Limit
    let perNetwork: Limit
    let overall: Limit
    /// The most addresses and networks remembered: past it, the fullest buckets are forgotten.
    let maximumKeys: Int
    private var addresses: [String: Bucket] = [:]
    private var networks: [String: Bucket] = [:]
    private var all: Bucket?
    /// Connections refused since the last line about them was logged.
    private(set) var refusedSinceLog = 0
    private var lastLog: Double?
    /// The connections refused in the current ``slice``, and when it began.
    private var refusedInSlice = 0
    private var sliceStart = -Double.infinity

    /// Connections from one address: 64 at once, then 4 a second. A device makes a few a
    /// minute (a dial, a reach-back check); the burst lets in what places for strangers
    /// take back anyway (``ConnectionQuota``), and what a host behind which several devices
    /// share one address needs when they all start.
    static let standardPerAddress = Limit(burst: 64, rate: 4)
    /// Connections from one network: 128 at once, then 16 a second, so that a dozen devices
    /// of one home network that start together all get in.
    static let standardPerNetwork = Limit(burst: 128, rate: 16)
    /// Connections from anywhere but paired devices' addresses: 256 at once, then 64 a
    /// second, for a flood from many networks (an IPv6 /48 holds 65 536 /64s).
    static let standardOverall = Limit(burst: 256, rate: 64)
    /// Seconds between two log lines about refused connections.
    static let logInterval = 60.0
    /// The most connections refused in one ``slice``: past that, no connection at all is
    /// taken in until the slice ends (``pause(now:)``), so that a flood, however fast, costs
    /// at most this many accepts per slice. Connections wait in the system's backlog meanwhile.
    static let refusalsPerSlice = 20
    /// Seconds of a slice.
    static let slice = 0.1

    init(perAddress: Limit = standardPerAddress, perNetwork: Limit = standardPerNetwork, overall: Limit = standardOverall,
         maximumKeys: Int = 4096) {
        self.perAddress = Limit(burst: max(1, perAddress.burst), rate: max(0, perAddress.rate))
        self.perNetwork = Limit(burst: max(1, perNetwork.burst), rate: max(0, perNetwork.rate))
        self.overall = Limit(burst: max(1, overall.burst), rate: max(0, overall.rate))
        self.maximumKeys = max(1, maximumKeys)
    }

    /// Whether a connection from `address` is let in now; one let in takes a token from its
    /// address's bucket and, unless `pairedDevice`, from its network's and from all.
    mutating func allow(_ address: String, pairedDevice: Bool = false, now: Double) -> Bool {
        let network = NetworkPrefix.of(address)
        var byAddress = Self.refilled(addresses[address], perAddress, now: now)
        var byNetwork = Self.refilled(networks[network], perNetwork, now: now)
        var overallBucket = Self.refilled(all, overall, now: now)
        guard byAddress.tokens >= 1, pairedDevice || (byNetwork.tokens >= 1 && overallBucket.tokens >= 1) else {
            refusedSinceLog += 1
            if now - sliceStart >= Self.slice { (sliceStart, refusedInSlice) = (now, 0) }
            refusedInSlice += 1
            return false
        }
        byAddress.tokens -= 1
        addresses[address] = byAddress
        if !pairedDevice {
            byNetwork.tokens -= 1
            networks[network] = byNetwork
            overallBucket.tokens -= 1
            all = overallBucket
        }
        if addresses.count > maximumKeys { Self.forget(&addresses, perAddress, keeping: maximumKeys, now: now) }
        if networks.count > maximumKeys { Self.forget(&networks, perNetwork, keeping: maximumKeys, now: now) }
        return true
    }

    /// Seconds to stop taking in connections for, when this slice's refusals reached
    /// ``refusalsPerSlice``: what is left of the slice; `nil` otherwise.
    func pause(now: Double) -> Double? {
        guard refusedInSlice >= Self.refusalsPerSlice, now - sliceStart < Self.slice else { return nil }
        return sliceStart + Self.slice - now
    }

    /// The number of connections refused since the last line about them, when one is due (at
    /// most one each ``logInterval``); `nil` when none is, or none was refused. It is then counted afresh.
    mutating func refusalsToLog(now: Double) -> Int? {
        guard refusedSinceLog > 0, lastLog.map({ now - $0 >= Self.logInterval }) ?? true else { return nil }
        defer { refusedSinceLog = 0 }
        lastLog = now
        return refusedSinceLog
    }

    private static func refilled(_ bucket: Bucket?, _ limit: Limit, now: Double) -> Bucket {
        guard let bucket else { return Bucket(tokens: limit.burst, updated: now) }
        let tokens = min(limit.burst, bucket.tokens + max(0, now - bucket.updated) * limit.rate)
        return Bucket(tokens: tokens, updated: now)
    }

    private static func forget(_ buckets: inout [String: Bucket], _ limit: Limit, keeping count: Int, now: Double) {
        buckets = buckets.filter { refilled($0.value, limit, now: now).tokens < limit.burst }
        guard buckets.count > count else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - count * 3 / 4)
        for (key, _) in oldest { buckets[key] = nil }
    }
}
