import Foundation

/// The addresses batond dials and when: static peers, paired devices' last addresses,
/// devices found through DNS-SD and the tailnet's devices, each retried with exponential
/// backoff while it has no link.
struct DialPlan {
    /// Why an address is dialed; it is dialed while any reason holds.
    enum Source: Hashable {
        /// A static peer (`--peer`, `peers=`): always.
        case configured
        /// Announced through DNS-SD: until it is no longer announced.
        case discovered
        /// Where a paired device was last seen: until it is unpaired.
        case paired
        /// Asked for now (pairing with a device not linked): once.
        case requested
        /// A device of the user's tailnet, as tailscaled lists it: while it is listed.
        case tailnet
    }

    struct Target {
        /// The device last reached there, once known.
        var deviceID: String?
        var nextAttempt: Date
        var backoff: Double
        var isDialing = false
        var sources: Set<Source>
    }

    static let firstBackoff = 1.0
    static let longestBackoff = 60.0
    /// A link that lasted this long was a good one: the backoff starts over after it.
    static let lastingLink = 10.0

    private(set) var targets: [String: Target] = [:]

    /// Adds `address` for `source`; a new address is dialed at the next tick.
    mutating func add(_ address: String, deviceID: String? = nil, source: Source) {
        guard targets[address] == nil else {
            if let deviceID { targets[address]?.deviceID = deviceID }
            targets[address]?.sources.insert(source)
            return
        }
        targets[address] = Target(deviceID: deviceID, nextAttempt: .distantPast, backoff: Self.firstBackoff,
                                   sources: [source])
    }

    /// Drops `source` from the addresses of `deviceID`; those left with no reason to be
    /// dialed go. Forgetting a paired device keeps the addresses DNS-SD or the settings
    /// give for it, so the two devices still see each other and can pair again.
    mutating func remove(device deviceID: String, source: Source) {
        for (address, target) in targets where target.deviceID == deviceID { remove(address, source: source) }
    }

    /// Makes `addresses` the only ones `source` gives for `deviceID`: the others of the device
    /// lose that reason (a paired device is dialed where it was seen last, not at every
    /// address it ever had).
    mutating func set(_ addresses: [String], deviceID: String, source: Source) {
        for (address, target) in targets where target.deviceID == deviceID && !addresses.contains(address) {
            remove(address, source: source)
        }
        for address in addresses { add(address, deviceID: deviceID, source: source) }
    }

    /// Drops `source` from `address`, which goes when no reason to dial it is left.
    mutating func remove(_ address: String, source: Source) {
        targets[address]?.sources.remove(source)
        if targets[address]?.sources.isEmpty == true { targets[address] = nil }
    }

    /// The addresses to dial now, marked as being dialed: not those whose device is linked
    /// or being dialed at another address (two links dialed at once from one side could be
    /// told apart differently by the two ends).
    mutating func due(now: Date = Date(), isLinked: (String) -> Bool) -> [String] {
        var dialing = Set(targets.values.filter(\.isDialing).compactMap(\.deviceID))
        var due: [String] = []
        for (address, target) in targets.sorted(by: Self.dialOrder) where !target.isDialing {
            if let id = target.deviceID, isLinked(id) || dialing.contains(id) { continue }
            guard target.nextAttempt <= now else { continue }
            targets[address]?.isDialing = true
            if let id = target.deviceID { dialing.insert(id) }
            due.append(address)
        }
        return due
    }

    /// Of a device's addresses due at once, the one asked for now is dialed first, then the one
    /// it was last seen at (it may have moved from the others), then by address.
    private static func dialOrder(_ first: (key: String, value: Target), _ second: (key: String, value: Target)) -> Bool {
        let rank = { (target: Target) in
            target.sources.contains(.requested) ? 0 : target.sources.contains(.paired) ? 1 : 2
        }
        return (rank(first.value), first.key) < (rank(second.value), second.key)
    }

    /// When ``due(now:isLinked:)`` will next have an address to dial: the earliest attempt
    /// of an address not being dialed whose device is not linked; `nil` when none waits.
    /// The same targets count as ``due(now:isLinked:)`` counts them, so a deadline returned
    /// here is one `due` acts on.
    func nextAttempt(isLinked: (String) -> Bool) -> Date? {
        let dialing = Set(targets.values.filter(\.isDialing).compactMap(\.deviceID))
        return targets.values.filter { target in
            guard !target.isDialing else { return false }
            guard let id = target.deviceID else { return true }
            return !isLinked(id) && !dialing.contains(id)
        }.map(\.nextAttempt).min()
    }

    /// A dial reached `deviceID`, or failed (`nil`): the next attempt waits out the backoff,
    /// which doubles after each failure up to ``longestBackoff``. Reaching a device does not
    /// reset it: only a lasting link does (``lost(_:after:now:)``).
    mutating func finished(_ address: String, deviceID: String?, now: Date = Date()) {
        guard var target = targets[address] else { return }
        target.isDialing = false
        target.sources.remove(.requested)
        guard !target.sources.isEmpty else {
            targets[address] = nil
            return
        }
        if let deviceID {
            target.deviceID = deviceID
        } else {
            target.backoff = min(target.backoff * 2, Self.longestBackoff)
        }
        target.nextAttempt = now.addingTimeInterval(target.backoff)
        targets[address] = target
    }

    /// Dials `address` of `deviceID` at the next tick, whatever its backoff, once: for a
    /// person pairing with it now.
    mutating func request(_ address: String, deviceID: String) {
        add(address, deviceID: deviceID, source: .requested)
        if targets[address]?.isDialing == false { targets[address]?.nextAttempt = .distantPast }
    }

    /// Dials the addresses of `deviceID` again only after `seconds`: for a device that is not
    /// paired, whose link was closed for that (pairing dials it at once).
    mutating func rest(_ deviceID: String, for seconds: Double, now: Date = Date()) {
        for (address, target) in targets where target.deviceID == deviceID {
            targets[address]?.nextAttempt = max(target.nextAttempt, now.addingTimeInterval(seconds))
        }
    }

    /// Dials the addresses `isWanted` picks at the next tick whatever their backoff, which
    /// starts over: after a resume or a network change, when the old failures say nothing of
    /// what works now. Addresses being dialed are left.
    mutating func dialSoon(where isWanted: (_ address: String, _ target: Target) -> Bool) {
        for (address, target) in targets where !target.isDialing && isWanted(address, target) {
            targets[address]?.nextAttempt = .distantPast
            targets[address]?.backoff = Self.firstBackoff
        }
    }

    /// A link to `deviceID` closed after `duration` seconds: its addresses are tried again
    /// after the first backoff if the link lasted (``lastingLink``), else after a doubled one,
    /// so a device that drops links at once is not dialed every second.
    mutating func lost(_ deviceID: String, after duration: Double, now: Date = Date()) {
        for (address, target) in targets where target.deviceID == deviceID {
            let backoff = duration >= Self.lastingLink ? Self.firstBackoff : min(target.backoff * 2, Self.longestBackoff)
            targets[address]?.backoff = backoff
            targets[address]?.nextAttempt = now.addingTimeInterval(backoff)
        }
    }
}
