import Baton
import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

/// The network half of batond: links to other devices, who is paired, offers pushed to
/// paired peers, and payloads fetched from them.
///
/// Any device may link (TLS with its own certificate) and say hello, which is how devices
/// see each other's names before pairing. Until the two are paired, a link carries only
/// hello, pairing messages and keepalives: anything else from an unpaired peer closes its
/// link, and nothing about activities is ever sent to one. A paired device's link must show
/// the pinned certificate, or it is closed.
///
/// Strangers get bounded places (``ConnectionQuota``): handshakes and unpaired links per
/// address, per network and in all, the oldest taken back for a newcomer; paired devices'
/// addresses have handshake places of their own, and a paired device's link is always let
/// in. An unpaired link lasts ``unpairedLinkLifetime`` unless a pairing is under way; the
/// device stays listed (``seenDevices``) and is dialed again when the person pairs with it.
@MainActor
final class PeerNetwork {
    let identity: DeviceIdentity
    let name: String
    let paired: PairedDevices
    let tls: PeerTLS
    let logger: Logger
    let fetchTimeout: Double
    private(set) var listener: PeerListener?

    /// Introduced links (hello received), by device id.
    private(set) var links: [String: PeerLink] = [:]
    /// The names devices gave in their hello.
    private(set) var names: [String: String] = [:]
    /// The protocol version and capabilities linked devices announced in their hello.
    private(set) var protocols: [String: (version: UInt32, capabilities: Set<String>)] = [:]
    /// Where devices listen, from their hello: `HOST:PORT`.
    private(set) var addresses: [String: String] = [:]
    /// Unpaired devices linked before, by when their link closed: still listed, and dialed
    /// again to pair. Their names and addresses stay in ``names`` and ``addresses``.
    private(set) var seenDevices: [String: Date] = [:]
    /// Places in ``seenDevices``, so that strangers cycling through keys from one address or
    /// network cannot push the other devices out.
    private var seenQuota = ConnectionQuota<String>(total: maximumSeenDevices, perAddress: maximumPerAddress,
                                                    perNetwork: maximumPerNetwork)
    private var introductions: [ObjectIdentifier: PeerLink] = [:]
    /// Places for strangers: incoming handshakes (paired devices' addresses have their own),
    /// links waiting for their hello, and introduced unpaired links.
    private var handshakeQuota = ConnectionQuota<Int>(total: maximumIntroductions,
                                                      perAddress: maximumPerAddress, perNetwork: maximumPerNetwork)
    private var pairedHandshakeQuota = ConnectionQuota<Int>(total: 4 * maximumPerAddress,
                                                            perAddress: maximumPerAddress, perNetwork: 4 * maximumPerAddress)
    private var introductionQuota = ConnectionQuota<ObjectIdentifier>(total: maximumIntroductions,
                                                                      perAddress: maximumPerAddress,
                                                                      perNetwork: maximumPerNetwork)
    private var unpairedLinkQuota = ConnectionQuota<String>(total: maximumIntroductions,
                                                            perAddress: maximumPerAddress, perNetwork: maximumPerNetwork)
    private var handshakes: [Int: IncomingHandshake] = [:]
    private var nextHandshake = 1
    /// Calls waiting for a device's link (pairing with a device not linked now), by device
    /// id and a token of each call.
    private var linkWaiters: [String: [UUID: @MainActor (Bool) -> Void]] = [:]
    /// What strangers make this device log, and do: pairing requests per device id, address
    /// and network, and log lines about unpaired devices.
    var pairingRequestLimits = (device: RateLimit(count: 3, per: 60), address: RateLimit(count: 6, per: 60),
                                network: RateLimit(count: 12, per: 60))
    private var strangerLogLimit = RateLimit(count: 20, per: 60)
    private var suppressedStrangerLines = 0
    var pairings: [String: PairingSession] = [:]
    /// Places for pairings other devices asked for, by device id.
    var incomingPairingQuota = ConnectionQuota<String>(total: maximumIncomingPairings, perAddress: 1, perNetwork: 2)
    private var plan = DialPlan()
    private var dialTimer: guint = 0
    private var fetches: [UInt32: (deviceID: String, finish: (Result<[UInt8], UserActivityError>) -> Void)] = [:]
    private var nextRequest: UInt32 = 1
    private var sentOffers: [PeerOffer] = []
    /// The activities each paired device fetched last, newest last: only these may it
    /// report as continued.
    private var fetchedBy: [String: [String]] = [:]
    static let rememberedFetches = 16
    private var offersTimer: guint = 0

    /// The most incoming handshakes, links waiting for their hello, and unpaired links, each:
    /// past that, the oldest is closed for a newcomer. Paired devices are always let in.
    static let maximumIntroductions = 32
    /// The most of each from one address, and from one network (/24, /64), so that one host
    /// or one subnet cannot take all the places.
    static let maximumPerAddress = 4
    static let maximumPerNetwork = 8
    /// Seconds a link has, once TLS is done, to say hello.
    static let helloTimeout = 3.0
    /// Seconds an unpaired link stays open while no pairing is under way, by default.
    nonisolated static let standardUnpairedLinkLifetime = 30.0
    /// How long an unpaired device whose link closed stays listed, and how many are.
    static let seenDeviceLifetime = 600.0
    static let maximumSeenDevices = 32
    /// Seconds before an unpaired device whose link closed is dialed again on its own
    /// (pairing dials it at once).
    static let unpairedRedial = 300.0
    /// The most pairings other devices asked for that may be under way at once, in all, per
    /// address and per network.
    static let maximumIncomingPairings = 4
    /// How long offers are gathered before they are pushed (changes come in bursts).
    static let offerDebounce = 0.01

    /// This device's current activities, as offers.
    var currentOffers: () -> [PeerOffer] = { [] }
    /// A paired device's offers now (each list replaces the device's earlier one).
    var onOffers: (_ deviceID: String, _ deviceName: String, [PeerOffer]) -> Void = { _, _, _ in }
    /// A device's offers are void: its link closed or it is no longer paired.
    var onDeviceGone: (_ deviceID: String) -> Void = { _ in }
    /// A paired device asks for the payload of this device's activity.
    var onFetch: (_ activityID: String) async -> Result<[UInt8], UserActivityError> = { _ in .failure(.cancelled) }
    /// A paired device continued this device's activity.
    var onContinued: (_ activityID: String, _ deviceName: String) -> Void = { _, _ in }
    /// A device asks to pair: show the code.
    var onPairingRequest: (_ deviceID: String, _ code: String) -> Void = { _, _ in }
    /// A pairing ended (paired, cancelled or timed out).
    var onPairingEnded: (_ deviceID: String) -> Void = { _ in }
    /// Devices appeared, left, paired or unpaired.
    var onChange: () -> Void = {}

    /// Seconds an unpaired link stays open while no pairing is under way.
    var unpairedLinkLifetime = standardUnpairedLinkLifetime

    init(identity: DeviceIdentity, name: String, paired: PairedDevices, keepalive: Double, fetchTimeout: Double,
         logger: Logger) throws {
        self.identity = identity
        self.name = name
        self.paired = paired
        self.fetchTimeout = fetchTimeout
        self.logger = logger
        tls = try PeerTLS(identity: identity)
        tls.keepalive = keepalive
    }

    /// Listens on `host:port` and starts dialing `peers` and the paired devices.
    func start(host: String, port: UInt16, peers: [String]) throws {
        let listener = try PeerListener(host: host, port: port)
        listener.onConnection = { [weak self] connection in self?.accept(connection) }
        self.listener = listener
        for address in peers { plan.add(address, source: .configured) }
        for device in paired.devices.values {
            if let address = device.address { plan.add(address, deviceID: device.id, source: .paired) }
        }
        dialTimer = GLibSources.every(milliseconds: 500) { [weak self] in
            self?.expireUnpaired()
            self?.dialDue()
        }
        dialDue()
    }

    /// Dials a device found through discovery.
    func discovered(_ address: String, deviceID: String) {
        guard deviceID != identity.deviceID else { return }
        plan.add(address, deviceID: deviceID, source: .discovered)
        dialDue()
    }

    /// A device is no longer announced: it is dialed only where it is paired or configured.
    func undiscovered(_ deviceID: String) {
        plan.remove(device: deviceID, source: .discovered)
    }

    func isLinked(_ deviceID: String) -> Bool { links[deviceID]?.isOpen ?? false }

    func isPaired(_ deviceID: String) -> Bool { paired.devices[deviceID] != nil }

    func deviceName(_ deviceID: String) -> String {
        names[deviceID] ?? paired.devices[deviceID]?.name ?? Self.shortID(deviceID)
    }

    /// The first 8 digits of a device id, shown with its name: names are chosen by the
    /// devices themselves, ids are not.
    static func shortID(_ deviceID: String) -> String { String(deviceID.prefix(8)) }

    /// The name and short id of a device, as people are shown it: `“Laptop” (1a2b3c4d)`.
    func displayName(_ deviceID: String) -> String {
        "“\(deviceName(deviceID))” (\(Self.shortID(deviceID)))"
    }

    /// The paired device other than `deviceID` whose name `deviceID` uses, or this device
    /// when it uses this device's name: a request under such a name is flagged.
    func impersonated(by deviceID: String) -> String? {
        let claimed = deviceName(deviceID).trimmingCharacters(in: .whitespaces).lowercased()
        if claimed == name.trimmingCharacters(in: .whitespaces).lowercased() { return "this device" }
        return paired.devices.values.first {
            $0.id != deviceID && $0.name.trimmingCharacters(in: .whitespaces).lowercased() == claimed
        }.map { "your paired “\($0.name)” (\(Self.shortID($0.id)))" }
    }

    /// The devices known now: linked ones, paired ones and unpaired ones seen lately.
    var knownDevices: [String] {
        Set(links.keys).union(paired.devices.keys).union(seenDevices.keys).sorted()
    }

    /// The id of the device named or numbered `text`.
    ///
    /// - Throws: ``ServiceError/unknownDevice(_:)`` when none or several match.
    func resolve(_ text: String) throws -> String {
        let known = knownDevices
        if known.contains(text) { return text }
        let named = known.filter { deviceName($0) == text || deviceName($0).lowercased() == text.lowercased() }
        if named.count == 1, let id = named.first { return id }
        if named.count > 1 {
            throw ServiceError.unknownDevice("several devices are named \"\(Excerpt.of(text))\": use an id (\(named.joined(separator: ", ")))")
        }
        let prefixed = known.filter { $0.hasPrefix(text.lowercased()) && text.count >= 4 }
        if prefixed.count == 1, let id = prefixed.first { return id }
        throw ServiceError.unknownDevice("no device named or numbered \"\(Excerpt.of(text))\": see baton devices")
    }

    // MARK: Links

    private func accept(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        let host = PeerLink.remote(of: connection).host
        let id = nextHandshake
        nextHandshake &+= 1
        let fromPairedDevice = pairedHosts.contains(host)
        let evicted = fromPairedDevice ? pairedHandshakeQuota.admit(id, from: host) : handshakeQuota.admit(id, from: host)
        for other in evicted ?? [] {
            handshakes.removeValue(forKey: other)?.end("a newer connection needed its place")
        }
        let control = IncomingHandshake()
        handshakes[id] = control
        Task { @MainActor in
            defer {
                handshakes[id] = nil
                handshakeQuota.remove(id)
                pairedHandshakeQuota.remove(id)
            }
            do {
                adopt(try await tls.accept(connection, control: control), dialed: nil)
            } catch {
                logger.debug("incoming connection from \(host) dropped: \(error)")
            }
        }
    }

    /// The addresses paired devices were last seen at: their handshakes have places of their own.
    private var pairedHosts: Set<String> {
        Set(paired.devices.values.compactMap { $0.address.flatMap(PeerAddress.host(of:)) })
    }

    private func dialDue() {
        for address in plan.due(isLinked: isLinked) {
            Task { @MainActor in
                do {
                    let link = try await tls.connect(to: address)
                    plan.finished(address, deviceID: link.peerDeviceID == identity.deviceID ? nil : link.peerDeviceID)
                    adopt(link, dialed: address)
                } catch {
                    let deviceID = plan.targets[address]?.deviceID
                    plan.finished(address, deviceID: nil)
                    logger.debug("dialing \(address) failed: \(error)")
                    if let deviceID, let waiters = linkWaiters.removeValue(forKey: deviceID) {
                        for waiter in waiters.values { waiter(false) }
                    }
                }
            }
        }
    }

    private func adopt(_ link: PeerLink, dialed: String?) {
        guard link.peerDeviceID != identity.deviceID else {
            link.close("this device")
            return
        }
        let key = ObjectIdentifier(link)
        if !isPaired(link.peerDeviceID) {
            guard let evicted = introductionQuota.admit(key, from: link.remoteHost) else {
                return link.close("too many links waiting for their hello")
            }
            for other in evicted {
                guard let waiting = introductions.removeValue(forKey: other) else { continue }
                waiting.close("a newer link needed its place")
            }
        }
        introductions[key] = link
        link.onMessage = { [weak self, weak link] message in
            guard let self, let link else { return }
            self.received(message, on: link)
        }
        link.onClose = { [weak self, weak link] reason in
            guard let self, let link else { return }
            self.closed(link, reason: reason)
        }
        link.onDroppedOffer = { [weak self, weak link] error in
            guard let self, let link else { return }
            self.logStranger("an offer from \(self.displayName(link.peerDeviceID)) was dropped: \(error)")
        }
        link.start()
        link.send(.hello(PeerHello(deviceID: identity.deviceID, name: name, port: UInt32(listener?.port ?? 0))))
        GLibSources.once(after: Self.helloTimeout) { [weak self, weak link] in
            guard let self, let link, self.introductions.removeValue(forKey: ObjectIdentifier(link)) != nil else { return }
            self.introductionQuota.remove(ObjectIdentifier(link))
            link.close("no hello")
        }
    }

    private func received(_ message: PeerMessage, on link: PeerLink) {
        let deviceID = link.peerDeviceID
        if introductions[ObjectIdentifier(link)] != nil {
            introductions[ObjectIdentifier(link)] = nil
            introductionQuota.remove(ObjectIdentifier(link))
            guard case .hello(let hello) = message else {
                return drop(link, "it spoke before its hello")
            }
            return introduce(link, hello)
        }
        guard links[deviceID] === link else { return }
        // The link refuses these before their body is read (PeerLink.isTrusted); this is the
        // second line, should a link's trust and the pinned devices ever disagree.
        guard isPaired(deviceID) || message.isAllowedBeforePairing else {
            logger.warning("\(deviceName(deviceID)) is not paired and sent an activity message; closing its link")
            return drop(link, "not paired")
        }
        switch message {
        case .hello:
            drop(link, "a second hello")
        case .pairRequest(let commitment):
            pairingRequested(by: deviceID, commitment: commitment, over: link)
        case .pairAccept(let nonce):
            pairingAccepted(by: deviceID, nonce: nonce, over: link)
        case .pairReveal(let nonce):
            pairingRevealed(by: deviceID, nonce: nonce, over: link)
        case .pairConfirm:
            pairingConfirmedRemotely(by: deviceID, over: link)
        case .pairCancel(let reason):
            guard pairings[deviceID] != nil else { return }
            endPairing(deviceID, sending: nil, because: "\(deviceName(deviceID)) cancelled: \(reason)")
            logger.notice("\(deviceName(deviceID)) cancelled pairing: \(reason)")
        case .unpair:
            guard isPaired(deviceID) else { return }
            do {
                try forget(deviceID)
                logger.notice("\(deviceName(deviceID)) unpaired this device")
            } catch {
                logger.error("\(deviceName(deviceID)) unpaired this device, but the paired devices cannot be saved: \(error)")
            }
        case .offers(let offers):
            onOffers(deviceID, deviceName(deviceID), offers)
        case .fetch(let request, let activityID):
            Task { @MainActor in
                let result = await onFetch(activityID)
                guard link.isOpen, links[deviceID] === link, isPaired(deviceID) else { return }
                switch result {
                case .success(let bytes):
                    fetchedBy[deviceID] = Array(((fetchedBy[deviceID] ?? []).filter { $0 != activityID } + [activityID])
                        .suffix(Self.rememberedFetches))
                    link.send(.payload(request: request, bytes: bytes))
                case .failure(let error): link.send(.failure(request: request, error))
                }
            }
        case .payload(let request, let bytes):
            finishFetch(request, from: deviceID, .success(bytes))
        case .failure(let request, let error):
            finishFetch(request, from: deviceID, .failure(error))
        case .continued(let activityID):
            guard fetchedBy[deviceID]?.contains(activityID) == true else {
                return logger.notice("\(deviceName(deviceID)) reported an activity continued that it never fetched; ignored")
            }
            fetchedBy[deviceID]?.removeAll { $0 == activityID }
            onContinued(activityID, deviceName(deviceID))
        case .ping, .pong:
            break
        case .unknown(let kind):
            logger.debug("\(deviceName(deviceID)) sent a message of kind \(kind), newer than this build; skipped")
        }
    }

    private func introduce(_ link: PeerLink, _ hello: PeerHello) {
        let deviceID = link.peerDeviceID
        guard hello.deviceID == deviceID else {
            return drop(link, "its hello names device \(hello.deviceID), its certificate \(deviceID)")
        }
        if let pinned = paired.devices[deviceID], [UInt8](pinned.certificate) != link.peerCertificateDER {
            logger.warning("\(pinned.name) (\(deviceID)) showed a certificate other than the pinned one; unpair and pair again if it was reinstalled")
            return drop(link, "not the pinned certificate")
        }
        if !isPaired(deviceID) {
            guard let evicted = unpairedLinkQuota.admit(deviceID, from: link.remoteHost,
                                                        isEvictable: { self.pairings[$0] == nil }) else {
                return drop(link, "too many devices that are not paired")
            }
            for other in evicted where other != deviceID {
                if let old = links[other] { drop(old, "a newer device needed its place") }
            }
        }
        if let existing = links[deviceID], existing.isOpen {
            guard prefers(link, over: existing) else {
                return link.close("already linked")
            }
            existing.close("replaced by a newer link")
            failFetches(of: deviceID, "the link with \(deviceName(deviceID)) was replaced")
            // Pairing messages sent on the old link may be lost: start over. The other side
            // replaces the link too (``prefers(_:over:)`` is the same on both) and ends its own.
            endPairing(deviceID, sending: nil, because: "the link was replaced")
        }
        links[deviceID] = link
        link.isTrusted = isPaired(deviceID)
        names[deviceID] = hello.name
        protocols[deviceID] = (hello.protocolVersion, hello.capabilities)
        seenDevices[deviceID] = nil
        seenQuota.remove(deviceID)
        let address = hello.port == 0 ? nil : PeerAddress.format(host: link.remoteHost, port: hello.port)
        addresses[deviceID] = address
        let linked = "linked with \(hello.name) (\(deviceID)) at \(link.remoteAddress)"
        if isPaired(deviceID) { logger.info("\(linked), paired") } else { logStranger(linked) }
        for waiter in (linkWaiters.removeValue(forKey: deviceID) ?? [:]).values { waiter(true) }
        if isPaired(deviceID) {
            if let address { plan.add(address, deviceID: deviceID, source: .paired) }
            do {
                try paired.update(deviceID, name: hello.name, address: address)
            } catch {
                logger.error("cannot save the paired devices: \(error)")
            }
            link.send(.offers(currentOffers()))
        }
        onChange()
    }

    /// Of two links to one device, both sides keep the one dialed by the device with the
    /// lower id, or the newer when the same side dialed both.
    private func prefers(_ new: PeerLink, over old: PeerLink) -> Bool {
        let dialer = { (link: PeerLink) in link.isOutgoing ? self.identity.deviceID : link.peerDeviceID }
        return dialer(new) == dialer(old) || dialer(new) < dialer(old)
    }

    private func drop(_ link: PeerLink, _ reason: String) {
        let line = "closing the link with \(link.remoteAddress): \(reason)"
        if isPaired(link.peerDeviceID) { logger.notice("\(line)") } else { logStranger(line) }
        link.close(reason)
        closed(link, reason: reason)
    }

    /// Logs a line about a device that is not paired, at most ``strangerLogLimit`` lines a
    /// minute, so a stranger cannot fill the log; the lines left out are counted.
    func logStranger(_ line: @autoclosure () -> String) {
        guard strangerLogLimit.allow("all", now: Self.monotonicNow) else {
            suppressedStrangerLines += 1
            return
        }
        let suppressed = suppressedStrangerLines
        suppressedStrangerLines = 0
        logger.info("\(line())\(suppressed > 0 ? " (\(suppressed) lines about unpaired devices left out)" : "")")
    }

    static var monotonicNow: Double { Double(g_get_monotonic_time()) / 1_000_000 }

    /// Closes unpaired links that outlived ``unpairedLinkLifetime`` with no pairing under
    /// way, and forgets unpaired devices seen too long ago.
    private func expireUnpaired() {
        let now = Date()
        for (deviceID, link) in links where !isPaired(deviceID) && pairings[deviceID] == nil && !link.isClosing {
            if now.timeIntervalSince(link.openedAt) >= unpairedLinkLifetime {
                drop(link, "not paired, and no pairing under way")
            }
        }
        for (deviceID, seen) in seenDevices where now.timeIntervalSince(seen) >= Self.seenDeviceLifetime {
            forgetSeen(deviceID)
        }
    }

    private func forgetSeen(_ deviceID: String) {
        seenDevices[deviceID] = nil
        seenQuota.remove(deviceID)
        guard !isPaired(deviceID), links[deviceID] == nil else { return }
        names[deviceID] = nil
        addresses[deviceID] = nil
        onChange()
    }

    private func closed(_ link: PeerLink, reason: String) {
        introductions[ObjectIdentifier(link)] = nil
        introductionQuota.remove(ObjectIdentifier(link))
        let deviceID = link.peerDeviceID
        guard links[deviceID] === link else {
            // A link this device dialed that closed before its hello (the device turned it
            // away): dial again after a doubled backoff, not at once.
            if link.isOutgoing, links[deviceID] == nil {
                plan.lost(deviceID, after: Date().timeIntervalSince(link.openedAt))
            }
            return
        }
        links[deviceID] = nil
        protocols[deviceID] = nil
        unpairedLinkQuota.remove(deviceID)
        let line = "link with \(deviceName(deviceID)) closed: \(reason)"
        if isPaired(deviceID) { logger.info("\(line)") } else { logStranger(line) }
        failFetches(of: deviceID, "the link with \(deviceName(deviceID)) closed: \(reason)")
        if pairings[deviceID] != nil { endPairing(deviceID, sending: nil, because: "the link closed: \(reason)") }
        if isPaired(deviceID) {
            plan.lost(deviceID, after: Date().timeIntervalSince(link.openedAt))
        } else {
            seenDevices[deviceID] = Date()
            for other in seenQuota.admit(deviceID, from: link.remoteHost) ?? [] where other != deviceID {
                forgetSeen(other)
            }
            plan.rest(deviceID, for: Self.unpairedRedial)
        }
        onDeviceGone(deviceID)
        onChange()
    }

    /// A linked device is paired now: its link no longer takes a stranger's place.
    func linkBecamePaired(_ deviceID: String) {
        unpairedLinkQuota.remove(deviceID)
    }

    /// Dials `deviceID` at `address` again whenever its link is lost.
    func redial(_ deviceID: String, at address: String) {
        plan.add(address, deviceID: deviceID, source: .paired)
    }

    /// The link with `deviceID`, dialing the address it was last seen at when it has none,
    /// and waiting up to `timeout` seconds for the link.
    ///
    /// - Returns: `nil` when the device cannot be reached.
    func linkDialingIfNeeded(_ deviceID: String, timeout: Double = 5) async -> PeerLink? {
        if let link = links[deviceID], link.isOpen { return link }
        guard let address = addresses[deviceID] ?? paired.devices[deviceID]?.address else { return nil }
        plan.request(address, deviceID: deviceID)
        let token = UUID()
        _ = await TimedWait.value(timeout: timeout) { finish in
            linkWaiters[deviceID, default: [:]][token] = finish
            dialDue()
        }
        linkWaiters[deviceID]?[token] = nil
        if linkWaiters[deviceID]?.isEmpty == true { linkWaiters[deviceID] = nil }
        guard let link = links[deviceID], link.isOpen else { return nil }
        return link
    }

    /// Forgets a paired device: its pin, its offers, its fetches under way and the address
    /// it was dialed at for being paired.
    ///
    /// - Throws: when the paired devices cannot be saved; then nothing changes.
    func forget(_ deviceID: String) throws {
        try paired.forget(deviceID)
        links[deviceID]?.isTrusted = false
        fetchedBy[deviceID] = nil
        failFetches(of: deviceID, "\(deviceName(deviceID)) is no longer paired")
        plan.remove(device: deviceID, source: .paired)
        onDeviceGone(deviceID)
        onChange()
    }

    // MARK: Offers and fetches

    /// This device's activities changed: paired peers get the new offers shortly.
    func offersChanged() {
        guard offersTimer == 0 else { return }
        offersTimer = GLibSources.once(after: Self.offerDebounce) { [weak self] in
            guard let self else { return }
            self.offersTimer = 0
            let offers = self.currentOffers()
            guard offers != self.sentOffers else { return }
            self.sentOffers = offers
            for (deviceID, link) in self.links where self.isPaired(deviceID) {
                link.send(.offers(offers))
            }
        }
    }

    /// Whether `deviceID` announced `capability` in its hello on the current link.
    func supports(_ capability: String, _ deviceID: String) -> Bool {
        protocols[deviceID]?.capabilities.contains(capability) ?? false
    }

    /// Sends a message to a paired, linked device; `false` when it is not linked, or when the
    /// message needs a capability the device did not announce.
    @discardableResult
    func send(_ message: PeerMessage, to deviceID: String, needing capability: String? = nil) -> Bool {
        if let capability, !supports(capability, deviceID) { return false }
        guard isPaired(deviceID), let link = links[deviceID], link.isOpen else { return false }
        link.send(message)
        return true
    }

    /// The payload of `activityID` on `deviceID`, which asks its app to save it now.
    ///
    /// - Throws: ``ServiceError/activity(_:)``: `connectionUnavailable` when the device is
    ///   not linked or its link closes, `remoteApplicationTimedOut` after ``fetchTimeout``,
    ///   or the origin's own error.
    func fetch(_ activityID: String, from deviceID: String) async throws -> [UInt8] {
        let request = nextRequest
        nextRequest &+= 1
        guard isPaired(deviceID), links[deviceID]?.isOpen == true else {
            throw ServiceError.activity(.connectionUnavailable("\(deviceName(deviceID)) is not connected"))
        }
        let result = await TimedWait.value(timeout: fetchTimeout) { finish in
            fetches[request] = (deviceID, finish)
            send(.fetch(request: request, activityID: activityID), to: deviceID)
        }
        fetches[request] = nil
        guard let result else {
            throw ServiceError.activity(.remoteApplicationTimedOut(
                "\(deviceName(deviceID)) did not send the activity within \(Int(fetchTimeout)) s"))
        }
        return try result.mapError { ServiceError.activity($0) }.get()
    }

    private func failFetches(of deviceID: String, _ reason: String) {
        for (request, fetch) in fetches where fetch.deviceID == deviceID {
            fetches[request] = nil
            fetch.finish(.failure(.connectionUnavailable(reason)))
        }
    }

    private func finishFetch(_ request: UInt32, from deviceID: String, _ result: Result<[UInt8], UserActivityError>) {
        guard let fetch = fetches[request], fetch.deviceID == deviceID else { return }
        fetches[request] = nil
        fetch.finish(result)
    }
}
