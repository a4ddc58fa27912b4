import Baton
import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

/// The network half of batond: links to other devices, their hellos, and who is paired;
/// every other message goes to the feature that claims its kind (``PeerFeature``).
///
/// Any device may link (TLS with its own certificate) and say hello, which is how devices
/// see each other's names before pairing; a device DNS-SD announces with a name is listed from
/// its record alone, and dialed only to pair, when it is paired or when it is a static peer
/// (``discovered(_:deviceID:name:)``), so an office of any size is listed without a link to
/// each desk. Until the two are paired, a link carries only
/// hello, pairing messages and keepalives: anything else from an unpaired peer closes its
/// link, and nothing about activities is ever sent to one. A paired device's link must show
/// the pinned certificate, or it is closed.
///
/// Strangers get bounded places (``ConnectionQuota``): handshakes and unpaired links per
/// address, per network and in all, the oldest taken back for a newcomer; paired devices'
/// and static peers' addresses have handshake places of their own, and a paired device's or a
/// static peer's link is always let in: those are the person's own choice, not strangers. An unpaired link lasts ``unpairedLinkLifetime`` unless a pairing is under way; the
/// device stays listed (``PeerDevice/seenAt``) and is dialed again when the person pairs with it.
///
/// Each remote device is one ``PeerDevice``; what happens to it is told to the ``features``,
/// and reported to the ``delegate``. The network owns the parts it runs on: ``pairing``
/// (``PairingCoordinator``), the names devices are shown by (``names``, ``DeviceNames``), what
/// devices may make batond log (``PeerLog``) and the links through relays (``RelayLinks``).
@MainActor
final class PeerNetwork {
    let identity: DeviceIdentity
    /// This device's name, as its hello and ``rename(to:)`` give it.
    private(set) var name: String
    let paired: PairedDevices
    let tls: PeerTLS
    let logger: Logger
    let fetchTimeout: Double
    private(set) var listener: PeerListener?

    /// What this network reports to, and asks its offers of.
    weak var delegate: (any PeerNetworkDelegate)?
    /// The features the messages other than hello, pairing and keepalives go to.
    private(set) lazy var features = PeerFeatures(network: self)
    /// The feature of each message kind, from ``features``.
    private var routes = PeerFeatureRoutes()
    /// What this device announces in its hello: typed pairing codes, and the features' capabilities.
    private(set) var capabilities: Set<String> = [PeerCapability.typedPairingCodes]
    /// The devices linked, pairing, seen lately or paired, by device id.
    private(set) var devices: [String: PeerDevice] = [:]
    /// The relays this device joins, and the paired devices it dials through them.
    private(set) lazy var relayLinks = RelayLinks(
        tls: tls, paired: paired, logger: logger, isLinked: { [weak self] in self?.isLinkedOrIntroducing($0) ?? true },
        adopt: { [weak self] link, certificate in self?.adoptRelayed(link, expecting: certificate) })
    /// The relays this device is joined to.
    var relays: [RelayClient] { relayLinks.clients }
    /// The pairings under way, and what strangers may ask.
    private(set) lazy var pairing = PairingCoordinator(network: self)
    /// What other devices may make batond log (``log(_:from:_:)``).
    let peerLog: PeerLog
    /// The tailnet's devices dialed now (``dialTailnet(_:port:)``), by address.
    private var tailnetAddresses: Set<String> = []
    /// Places for unpaired devices seen lately (``PeerDevice/seenAt``), so that strangers
    /// cycling through keys from one address or network cannot push the other devices out.
    private var seenQuota = ConnectionQuota<String>(total: maximumSeenDevices, perAddress: maximumPerAddress,
                                                    perNetwork: maximumPerNetwork)
    /// Places for unpaired devices listed from their DNS-SD record (``PeerDevice/discovered``):
    /// not counted per network (an office is one /24), but per address and in all, so that
    /// one host announcing records under many ids cannot grow the list without end.
    private var discoveredQuota = ConnectionQuota<String>(total: maximumDiscoveredDevices, perAddress: maximumPerAddress,
                                                          perNetwork: maximumDiscoveredDevices)
    /// Links waiting for their hello, each with the timer that closes it without one.
    private var introductions: [ObjectIdentifier: (link: PeerLink, helloTimer: guint)] = [:]
    /// Places for strangers: incoming handshakes (paired devices' addresses have their own),
    /// links waiting for their hello, and introduced unpaired links.
    private var handshakeQuota = ConnectionQuota<Int>(total: maximumIntroductions,
                                                      perAddress: maximumPerAddress, perNetwork: maximumPerNetwork)
    /// Places for incoming handshakes from paired devices' and static peers' addresses.
    private var ownHandshakeQuota = ConnectionQuota<Int>(total: maximumIntroductions, perAddress: maximumPerAddress,
                                                         perNetwork: maximumIntroductions)
    /// The hosts of the static peers the person gave (`--peer`, the configuration file): their
    /// connections take no stranger's place (``isOwnChoice(_:)``).
    private var staticPeerHosts: Set<String> = []
    private var introductionQuota = ConnectionQuota<ObjectIdentifier>(total: maximumIntroductions,
                                                                      perAddress: maximumPerAddress,
                                                                      perNetwork: maximumPerNetwork)
    private var unpairedLinkQuota = ConnectionQuota<String>(total: maximumIntroductions,
                                                            perAddress: maximumPerAddress, perNetwork: maximumPerNetwork)
    private var handshakes: [Int: IncomingHandshake] = [:]
    /// How fast connections are taken in, per address and per network: checked first.
    var acceptRate = AcceptRate()
    private var nextHandshake = 1
    var plan = DialPlan()
    /// The re-check under way after a resume or a network change (``recheckLinks(because:)``):
    /// when it began, and until when a paired device whose older link closes is dialed at once.
    var recheck: (startedAt: Date, until: Date)?
    /// The one timer of the network's own deadlines (``scheduleHousekeeping()``), and when it fires.
    private var housekeepingTimer: guint = 0
    private var housekeepingDeadline: Date?
    /// The number of the next request this device sends (fetches, reach-back checks, streams).
    var nextRequest: UInt32 = 1

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
    /// How many unpaired devices are listed from their DNS-SD records at most.
    static let maximumDiscoveredDevices = 128
    /// Seconds before an unpaired device whose link closed is dialed again on its own
    /// (pairing dials it at once).
    static let unpairedRedial = 300.0

    /// Seconds an unpaired link stays open while no pairing is under way.
    var unpairedLinkLifetime = standardUnpairedLinkLifetime

    init(identity: DeviceIdentity, name: String, paired: PairedDevices, keepalive: Double, fetchTimeout: Double,
         logger: Logger) throws {
        self.identity = identity
        self.name = name
        self.paired = paired
        self.fetchTimeout = fetchTimeout
        self.logger = logger
        peerLog = PeerLog(logger: logger)
        tls = try PeerTLS(identity: identity)
        tls.keepalive = keepalive
        routes = try PeerFeatureRoutes(features.all)
        capabilities.formUnion(features.all.compactMap(\.capability))
    }

    /// Tells every feature that `change` happened to `device`.
    func tellFeatures(_ device: PeerDevice, _ change: PeerDeviceChange) {
        for feature in features.all { feature.deviceChanged(device, change) }
    }

    /// Listens on `host:port` and starts dialing `peers` and the paired devices.
    func start(host: String, port: UInt16, peers: [String]) throws {
        let listener = try PeerListener(host: host, port: port)
        tls.listenHost = host
        listener.onConnection = { [weak self] connection in self?.accept(connection) }
        self.listener = listener
        for address in peers { plan.add(address, source: .configured) }
        staticPeerHosts = Set(peers.compactMap(PeerAddress.host(of:)))
        for device in paired.devices.values {
            if let address = device.address { plan.add(address, deviceID: device.id, source: .paired) }
        }
        dialDue()
    }

    /// Arms the network's one timer for the next thing due: a dial whose backoff ends, an
    /// unpaired link's end (``unpairedLinkLifetime``) or an unpaired device's listing
    /// (``seenDeviceLifetime``). With none due, nothing is armed: a batond without peers
    /// never wakes, and one whose peers are all linked directly not for them either (the
    /// system watches the links, ``PeerLink``; only links through a relay ping).
    func scheduleHousekeeping() {
        var deadline = plan.nextAttempt(isLinked: isLinkedDirectlyOrIntroducing)
        for device in devices.values where !isPaired(device.id) {
            if device.pairing == nil, let link = device.link, !link.isClosing {
                deadline = Self.earlier(deadline, link.openedAt.addingTimeInterval(unpairedLinkLifetime))
            }
            if let seen = device.seenAt {
                deadline = Self.earlier(deadline, seen.addingTimeInterval(Self.seenDeviceLifetime))
            }
        }
        guard let deadline else {
            GLibSources.cancel(housekeepingTimer)
            housekeepingTimer = 0
            housekeepingDeadline = nil
            return
        }
        if housekeepingTimer != 0, let armed = housekeepingDeadline, armed <= deadline { return }
        GLibSources.cancel(housekeepingTimer)
        housekeepingDeadline = deadline
        housekeepingTimer = GLibSources.once(after: max(0.001, deadline.timeIntervalSinceNow)) { [weak self] in
            guard let self else { return }
            self.housekeepingTimer = 0
            self.housekeepingDeadline = nil
            self.expireUnpaired()
            self.dialDue()
        }
    }

    private static func earlier(_ first: Date?, _ second: Date) -> Date {
        first.map { min($0, second) } ?? second
    }

    /// A device DNS-SD announces at `address`, under `name` (`nil`: its record has none, as an
    /// older batond's has not). With a name it is listed from the record while it is announced,
    /// taking a place of ``discoveredQuota`` unless it is paired, and dialed only when it is
    /// paired (at the address announced now) or to pair with it (``linkDialingIfNeeded(_:timeout:)``);
    /// without one it is dialed, and listed from its hello, as before names were announced.
    /// A paired device announced elsewhere than it was last seen may have moved
    /// (``followIfMoved(_:deviceID:)``).
    func discovered(_ address: String, deviceID: String, name: String?) {
        guard deviceID != identity.deviceID else { return }
        guard let name else {
            plan.add(address, deviceID: deviceID, source: .discovered)
            followIfMoved(address, deviceID: deviceID)
            return dialDue()
        }
        if !isPaired(deviceID) {
            let host = PeerAddress.host(of: address) ?? address
            guard let evicted = discoveredQuota.admit(deviceID, from: host) else { return }
            for other in evicted where other != deviceID { endDiscoveredListing(other) }
            // Announced without a name before: listed now, no longer dialed for being announced.
            plan.remove(device: deviceID, source: .discovered)
        }
        device(deviceID).discovered = (name, address)
        if isPaired(deviceID) {
            plan.add(address, deviceID: deviceID, source: .discovered)
            followIfMoved(address, deviceID: deviceID)
            dialDue()
        }
        delegate?.devicesChanged()
    }

    /// A paired device announced at `address`, elsewhere than it was last seen, may have moved:
    /// it is dialed there first, and its link, should it reach the old address, is checked
    /// (``recheck(_:)``). Its hello at the new address, which shows the pinned certificate, is
    /// what makes the address the one kept.
    func followIfMoved(_ address: String, deviceID: String) {
        guard isPaired(deviceID), paired.devices[deviceID]?.address != address else { return }
        plan.request(address, deviceID: deviceID)
        if let link = devices[deviceID]?.link, !link.isRelayed, link.remoteHost != PeerAddress.host(of: address) {
            recheck(link)
        }
    }

    /// A device is no longer announced (DNS-SD's goodbye, or its record expired): it is no
    /// longer listed from its record, and dialed only where it is paired or configured.
    func undiscovered(_ deviceID: String) {
        plan.remove(device: deviceID, source: .discovered)
        endDiscoveredListing(deviceID)
        scheduleHousekeeping()
    }

    /// Ends the listing of `deviceID` from its DNS-SD record, and its place.
    private func endDiscoveredListing(_ deviceID: String) {
        discoveredQuota.remove(deviceID)
        guard let device = devices[deviceID], device.discovered != nil else { return }
        device.discovered = nil
        discardIfIdle(deviceID)
        delegate?.devicesChanged()
    }

    /// The user's tailnet (Tailscale): its devices that may run batond are dialed at
    /// `port` while tailscaled lists them, as DNS-SD's are; whoever answers is listed like any
    /// device nearby, and nothing is shared before pairing. The ones no longer listed are
    /// dialed only where they are paired or configured.
    func dialTailnet(_ peers: [TailnetStatus.Peer], port: UInt16) {
        let addresses = Set(peers.map { PeerAddress.format(host: $0.address, port: UInt32(port)) })
        for gone in tailnetAddresses.subtracting(addresses) { plan.remove(gone, source: .tailnet) }
        for new in addresses.subtracting(tailnetAddresses) { plan.add(new, source: .tailnet) }
        tailnetAddresses = addresses
        dialDue()
    }

    func isLinked(_ deviceID: String) -> Bool { devices[deviceID]?.isLinked ?? false }

    func isPaired(_ deviceID: String) -> Bool { paired.devices[deviceID] != nil }

    /// The link with `deviceID`, while it has one.
    func link(_ deviceID: String) -> PeerLink? { devices[deviceID]?.link }

    /// Where `deviceID` listens: while it is linked, where its hello said; else where DNS-SD
    /// announces it now, else where its last hello said, else where it was paired.
    func address(of deviceID: String) -> String? {
        let device = devices[deviceID]
        if device?.isLinked == true, let address = device?.address { return address }
        return device?.discovered?.address ?? device?.address ?? paired.devices[deviceID]?.address
    }

    /// The device object of `deviceID`, made when there is none.
    func device(_ deviceID: String) -> PeerDevice {
        if let device = devices[deviceID] { return device }
        let device = PeerDevice(id: deviceID)
        devices[deviceID] = device
        return device
    }

    /// Drops the device object of `deviceID` once nothing is kept for it here (see
    /// ``PeerDevice/isIdle``) nor by a feature; a paired device keeps its object for its name
    /// and address.
    func discardIfIdle(_ deviceID: String) {
        guard let device = devices[deviceID], device.isIdle, !isPaired(deviceID),
              !features.all.contains(where: { $0.holdsState(for: deviceID) }) else { return }
        devices[deviceID] = nil
    }

    /// The devices known now: linked ones, paired ones, unpaired ones seen lately and those
    /// DNS-SD announces with a name.
    var knownDevices: [String] {
        Set(devices.values.filter { $0.link != nil || $0.seenAt != nil || $0.discovered != nil }.map(\.id))
            .union(paired.devices.keys).sorted()
    }

    /// The id of the device named or numbered `text` (``DeviceNames/resolve(_:among:)``).
    func resolve(_ text: String) throws -> String { try names.resolve(text, among: knownDevices) }

    // MARK: Names and log lines

    /// The names devices are shown by here, as they are now.
    var names: DeviceNames {
        DeviceNames(thisDevice: name, paired: paired.devices,
                    announced: { [devices] in devices[$0]?.claimedName })
    }

    /// What ``names`` says of a device, as the features and the service ask it.
    static func shortID(_ deviceID: String) -> String { DeviceNames.shortID(deviceID) }
    func deviceName(_ deviceID: String) -> String { names.deviceName(deviceID) }
    func displayName(_ deviceID: String) -> String { names.displayName(deviceID) }
    func claimedName(_ deviceID: String) -> String? { names.claimedName(deviceID) }
    func impersonated(by deviceID: String) -> String? { names.impersonated(by: deviceID) }

    /// Logs `line`, which `deviceID` made happen, at `level`, within what that device may make
    /// batond log (``PeerLog``): its own budget when it is paired, its address's and all
    /// strangers' otherwise.
    func log(_ level: Logger.Level, from deviceID: String, _ line: @autoclosure () -> String) {
        log(level, from: deviceID, at: devices[deviceID]?.link?.remoteHost, line())
    }

    /// Logs `line` about the device at the other end of `link`, as ``log(_:from:_:)`` does.
    func log(_ level: Logger.Level, about link: PeerLink, _ line: @autoclosure () -> String) {
        log(level, from: link.peerDeviceID, at: link.remoteHost, line())
    }

    private func log(_ level: Logger.Level, from deviceID: String, at host: String?, _ line: @autoclosure () -> String) {
        guard isPaired(deviceID) else {
            return peerLog.stranger(line(), from: host ?? Self.shortID(deviceID), level: level)
        }
        peerLog.paired(level, from: deviceID, named: { displayName(deviceID) }, line())
    }

    // MARK: Links

    private func accept(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        let host = PeerLink.remote(of: connection).host
        let fromOwnChoice = isOwnChoice(host)
        guard acceptRate.admit(connection, from: host, pairedDevice: fromOwnChoice, listener: listener, logger: logger)
        else { return }
        let id = nextHandshake
        nextHandshake &+= 1
        let evicted = fromOwnChoice ? ownHandshakeQuota.admit(id, from: host) : handshakeQuota.admit(id, from: host)
        for other in evicted ?? [] {
            handshakes.removeValue(forKey: other)?.end("a newer connection needed its place")
        }
        let control = IncomingHandshake()
        handshakes[id] = control
        Task { @MainActor in
            defer {
                handshakes[id] = nil
                handshakeQuota.remove(id)
                ownHandshakeQuota.remove(id)
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

    /// Whether `host` is a paired device's last address or a static peer's: the person's own
    /// choice, whose connections and links take no stranger's place, so that a person's own
    /// network of a dozen devices is not held back by the places kept against a flood.
    private func isOwnChoice(_ host: String) -> Bool {
        staticPeerHosts.contains(host) || pairedHosts.contains(host)
    }

    /// Whether `link` is with a static peer's address, and so takes no stranger's place.
    private func isWithStaticPeer(_ link: PeerLink) -> Bool {
        staticPeerHosts.contains(link.remoteHost)
    }

    /// Whether `deviceID` is linked, or has a link waiting for its hello: either way it is
    /// not dialed again now.
    func isLinkedOrIntroducing(_ deviceID: String) -> Bool {
        isLinked(deviceID) || introductions.values.contains { $0.link.peerDeviceID == deviceID }
    }

    /// Whether `deviceID` is linked other than through a relay, or has a link waiting for its
    /// hello: a device linked through a relay is still dialed directly, on the plan's backoff,
    /// so that a direct link takes over once one is possible.
    func isLinkedDirectlyOrIntroducing(_ deviceID: String) -> Bool {
        if let link = devices[deviceID]?.link, link.isOpen, !link.isRelayed { return true }
        return introductions.values.contains { $0.link.peerDeviceID == deviceID }
    }

    func dialDue() {
        defer { scheduleHousekeeping() }
        for address in plan.due(isLinked: isLinkedDirectlyOrIntroducing) {
            Task { @MainActor in
                defer { scheduleHousekeeping() }
                let expected = plan.targets[address]?.deviceID
                do {
                    let link = try await tls.connect(to: address)
                    let reached = link.peerDeviceID
                    plan.finished(address, deviceID: reached == identity.deviceID ? nil : reached)
                    // An address dialed without knowing whose it is (a static peer, a tailnet
                    // device) may reach a device linked directly already: that link stays, and
                    // this one closes before its hello, so the other side never weighs it.
                    if expected == nil, reached != identity.deviceID, isLinkedDirectlyOrIntroducing(reached) {
                        return link.close("already linked")
                    }
                    adopt(link, dialed: address)
                } catch {
                    let deviceID = plan.targets[address]?.deviceID
                    plan.finished(address, deviceID: nil)
                    logger.debug("dialing \(address) failed: \(error)")
                    if let deviceID, let device = devices[deviceID] {
                        device.finishLinkWaiters(linked: false)
                        discardIfIdle(deviceID)
                    }
                }
            }
        }
    }

    func adopt(_ link: PeerLink, dialed: String?) {
        guard link.peerDeviceID != identity.deviceID else {
            link.close("this device")
            return
        }
        let key = ObjectIdentifier(link)
        if !isPaired(link.peerDeviceID), !isWithStaticPeer(link) {
            guard let evicted = introductionQuota.admit(key, from: link.remoteHost) else {
                return link.close("too many links waiting for their hello")
            }
            for other in evicted {
                endIntroduction(other)?.close("a newer link needed its place")
            }
        }
        introductions[key] = (link, 0)
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
            self.log(.info, about: link, "an offer from \(self.displayName(link.peerDeviceID)) was dropped: \(error)")
        }
        link.start()
        link.send(.hello(PeerHello(deviceID: identity.deviceID, name: name, port: UInt32(listener?.port ?? 0),
                                   capabilities: capabilities)))
        guard introductions[key] != nil else { return }
        introductions[key]?.helloTimer = GLibSources.once(after: Self.helloTimeout) { [weak self] in
            guard let self else { return }
            self.introductions[key]?.helloTimer = 0
            guard let link = self.endIntroduction(key) else { return }
            link.close("no hello")
            self.scheduleHousekeeping()
        }
    }

    /// Ends the wait for a link's hello: its timer and its place. Returns the link, if it
    /// was waiting.
    @discardableResult
    private func endIntroduction(_ key: ObjectIdentifier) -> PeerLink? {
        introductionQuota.remove(key)
        guard let introduction = introductions.removeValue(forKey: key) else { return nil }
        GLibSources.cancel(introduction.helloTimer)
        return introduction.link
    }

    private func received(_ message: PeerMessage, on link: PeerLink) {
        let deviceID = link.peerDeviceID
        if endIntroduction(ObjectIdentifier(link)) != nil {
            guard case .hello(let hello) = message else {
                return drop(link, "it spoke before its hello")
            }
            return introduce(link, hello)
        }
        guard let device = devices[deviceID], device.link === link else { return }
        // The link refuses these before their body is read (PeerLink.isTrusted); this is the
        // second line, should a link's trust and the pinned devices ever disagree.
        guard isPaired(deviceID) || message.isAllowedBeforePairing else {
            log(.warning, from: deviceID, "\(deviceName(deviceID)) is not paired and sent an activity message; closing its link")
            return drop(link, "not paired")
        }
        switch message {
        case .hello:
            drop(link, "a second hello")
        case .ping, .pong:
            break
        case .unknown(let kind):
            log(.debug, from: deviceID, "\(deviceName(deviceID)) sent a message of kind \(kind), newer than this build; skipped")
        default:
            guard pairing.received(message, from: device, over: link) || routes.deliver(message, from: device) else {
                return log(.debug, from: deviceID, "\(deviceName(deviceID)) sent a message no feature here handles; skipped")
            }
        }
    }

    /// Pins the name a paired device gave itself (``PeerDevice/name``), as
    /// ``DeviceNames/takenName(_:by:)`` takes it, with the address it listens on when known.
    func takeName(of device: PeerDevice, address: String?) {
        let taken = names.takenName(device.name ?? "", by: device.id)
        if let posing = taken.posing {
            log(.notice, from: device.id,
                "\(Self.shortID(device.id)) calls itself “\(device.name ?? "")”, which poses as \(posing): it is shown as “\(taken.name)”")
        }
        do {
            try paired.update(device.id, name: taken.name, address: address)
        } catch {
            logger.error("cannot save the paired devices: \(error)")
        }
    }

    /// Names this device `name` from now on, and tells the linked paired devices that can
    /// hear it; the others learn it from the next hello.
    func rename(to name: String) {
        guard name != self.name else { return }
        self.name = name
        features.renames.announce(name)
        onRename?(name)
    }

    /// Runs with this device's new name after ``rename(to:)``: DNS-SD announces it again.
    var onRename: (@MainActor (String) -> Void)?

    private func introduce(_ link: PeerLink, _ hello: PeerHello) {
        let deviceID = link.peerDeviceID
        guard hello.deviceID == deviceID else {
            return drop(link, "its hello names device \(hello.deviceID), its certificate \(deviceID)")
        }
        if let pinned = paired.devices[deviceID], [UInt8](pinned.certificate) != link.peerCertificateDER {
            log(.warning, about: link, "\(deviceName(deviceID)) (\(deviceID)) showed a certificate other than the pinned one; unpair and pair again if it was reinstalled")
            return drop(link, "not the pinned certificate")
        }
        if !isPaired(deviceID), !isWithStaticPeer(link) {
            guard let evicted = unpairedLinkQuota.admit(deviceID, from: link.remoteHost,
                                                        isEvictable: { self.devices[$0]?.pairing == nil }) else {
                return drop(link, "too many devices that are not paired")
            }
            for other in evicted where other != deviceID {
                if let old = devices[other]?.link { drop(old, "a newer device needed its place") }
            }
        }
        let device = self.device(deviceID)
        if let existing = device.link, existing.isOpen {
            guard prefers(link, over: existing) else {
                if isPaired(deviceID), !link.isOutgoing, !link.isRelayed, !existing.isRelayed,
                   existing.remoteHost != link.remoteHost {
                    movedAway(device, to: hello.port == 0 ? nil : PeerAddress.format(host: link.remoteHost, port: hello.port),
                              staleLink: existing)
                }
                return link.close("already linked")
            }
            existing.close("replaced by a newer link")
            tellFeatures(device, .unlinked(reason: "the link with \(deviceName(deviceID)) was replaced"))
            // Pairing messages sent on the old link may be lost: start over. The other side
            // replaces the link too (``prefers(_:over:)`` is the same on both) and ends its own.
            pairing.endPairing(deviceID, sending: nil, because: "the link was replaced")
        }
        device.link = link
        link.isTrusted = isPaired(deviceID)
        device.name = DeviceNameSkeleton.cleaned(hello.name)
        device.announced = (hello.protocolVersion, hello.capabilities)
        device.seenAt = nil
        seenQuota.remove(deviceID)
        // Through a relay, the far end's host is the relay's: where the device listens stays unknown.
        let relayed = link.isRelayed
        let address = hello.port == 0 || relayed ? nil : PeerAddress.format(host: link.remoteHost, port: hello.port)
        device.address = address
        if isPaired(deviceID) { takeName(of: device, address: address) }
        let linked = "linked with \(deviceName(deviceID)) (\(deviceID)) at \(link.remoteAddress)"
        log(.info, about: link, isPaired(deviceID) ? "\(linked), paired" : linked)
        device.finishLinkWaiters(linked: true)
        if isPaired(deviceID) {
            // A paired device is dialed where it was seen last; through a relay, also at that
            // host on the port it listens on now: if that works, a direct link takes over.
            let last = paired.devices[deviceID]?.address
            var addresses: [String] = []
            if let address {
                addresses = [address]
            } else if relayed, let last {
                addresses = [last]
                if hello.port != 0, let host = PeerAddress.host(of: last) {
                    addresses.append(PeerAddress.format(host: host, port: hello.port))
                }
            }
            if !addresses.isEmpty {
                plan.set(addresses, deviceID: deviceID, source: .paired)
                // The address it was last seen at may be another device's by now (a reused
                // lease), which the plan then knows by that device: it goes all the same.
                if let last, !addresses.contains(last) { plan.remove(last, source: .paired) }
            }
        }
        tellFeatures(device, .linked)
        scheduleHousekeeping()
        delegate?.devicesChanged()
        // A TLS handshake and the certificate checks leave much freed heap behind: give it
        // back to the system, or ten linked devices keep about 12 MiB resident instead of 9.
        malloc_trim(0)
    }

    /// Of two links to one device, both sides keep a direct one over one through a relay, then
    /// the one dialed by the device with the lower id, or the newer when the same side dialed both.
    private func prefers(_ new: PeerLink, over old: PeerLink) -> Bool {
        if new.isRelayed != old.isRelayed { return old.isRelayed }
        let dialer = { (link: PeerLink) in link.isOutgoing ? self.identity.deviceID : link.peerDeviceID }
        return dialer(new) == dialer(old) || dialer(new) < dialer(old)
    }

    func drop(_ link: PeerLink, _ reason: String) {
        let line = "closing the link with \(link.remoteAddress): \(reason)"
        log(isPaired(link.peerDeviceID) ? .notice : .info, about: link, line)
        link.close(reason)
        closed(link, reason: reason)
    }

    /// Closes unpaired links that outlived ``unpairedLinkLifetime`` with no pairing under
    /// way, and forgets unpaired devices seen too long ago.
    private func expireUnpaired() {
        let now = Date()
        for device in Array(devices.values) where !isPaired(device.id) && device.pairing == nil {
            if let link = device.link, !link.isClosing, now.timeIntervalSince(link.openedAt) >= unpairedLinkLifetime {
                drop(link, "not paired, and no pairing under way")
            }
        }
        for device in Array(devices.values) {
            if let seen = device.seenAt, now.timeIntervalSince(seen) >= Self.seenDeviceLifetime { forgetSeen(device.id) }
        }
    }

    private func forgetSeen(_ deviceID: String) {
        seenQuota.remove(deviceID)
        guard let device = devices[deviceID] else { return }
        device.seenAt = nil
        guard !isPaired(deviceID), device.link == nil else { return }
        device.name = nil
        device.address = nil
        discardIfIdle(deviceID)
        delegate?.devicesChanged()
    }

    private func closed(_ link: PeerLink, reason: String) {
        endIntroduction(ObjectIdentifier(link))
        let deviceID = link.peerDeviceID
        if isPaired(deviceID) { relayLinks.dialWhileUnlinked() }
        guard let device = devices[deviceID], device.link === link else {
            // A link this device dialed that closed before its hello (the device turned it
            // away): dial again after a doubled backoff, not at once.
            if link.isOutgoing, devices[deviceID]?.link == nil {
                plan.lost(deviceID, after: Date().timeIntervalSince(link.openedAt))
            }
            scheduleHousekeeping()
            return
        }
        device.link = nil
        device.announced = nil
        unpairedLinkQuota.remove(deviceID)
        let line = "link with \(deviceName(deviceID)) closed: \(reason)"
        log(.info, about: link, line)
        tellFeatures(device, .unlinked(reason: "the link with \(deviceName(deviceID)) closed: \(reason)"))
        if device.pairing != nil { pairing.endPairing(deviceID, sending: nil, because: "the link closed: \(reason)") }
        if isPaired(deviceID) {
            if let recheck, link.openedAt < recheck.startedAt, Date() < recheck.until {
                // A link that went stale while this device slept or changed networks: the
                // device is dialed at once, not after its backoff.
                plan.dialSoon { $1.deviceID == deviceID }
            } else {
                plan.lost(deviceID, after: Date().timeIntervalSince(link.openedAt))
            }
        } else {
            device.seenAt = Date()
            let placesTaken = isWithStaticPeer(link) ? [] : seenQuota.admit(deviceID, from: link.remoteHost) ?? []
            for other in placesTaken where other != deviceID {
                forgetSeen(other)
            }
            plan.rest(deviceID, for: Self.unpairedRedial)
        }
        scheduleHousekeeping()
        delegate?.peerGone(deviceID)
        delegate?.devicesChanged()
    }

    /// Takes a link made through a relay (``RelayLinks``), marked so: only a paired device's
    /// (the one dialed, when `certificate` is given), as the handshake showed it, not as the relay said.
    private func adoptRelayed(_ link: PeerLink, expecting certificate: [UInt8]?) {
        guard isPaired(link.peerDeviceID), certificate == nil || link.peerCertificateDER == certificate else {
            peerLog.stranger("closing a link through a relay with \(link.peerDeviceID), which is not the paired device expected",
                             from: link.remoteHost)
            return link.close("not a paired device")
        }
        link.isRelayed = true
        log(.info, about: link, "a link with \(displayName(link.peerDeviceID)) through the relay \(link.remoteAddress)")
        adopt(link, dialed: nil)
    }

    /// A linked device is paired now: its link no longer takes a stranger's place, nor its
    /// DNS-SD listing; where DNS-SD announces it, it is dialed.
    func linkBecamePaired(_ deviceID: String) {
        unpairedLinkQuota.remove(deviceID)
        discoveredQuota.remove(deviceID)
        if let address = devices[deviceID]?.discovered?.address {
            plan.add(address, deviceID: deviceID, source: .discovered)
        }
    }

    /// Dials `deviceID` at `address` again whenever its link is lost.
    func redial(_ deviceID: String, at address: String) {
        plan.add(address, deviceID: deviceID, source: .paired)
        scheduleHousekeeping()
    }

    /// The link with `deviceID`, dialing the address it was last seen at when it has none,
    /// and waiting up to `timeout` seconds for the link.
    ///
    /// - Returns: `nil` when the device cannot be reached.
    func linkDialingIfNeeded(_ deviceID: String, timeout: Double = 5) async -> PeerLink? {
        if let link = devices[deviceID]?.link, link.isOpen { return link }
        guard let address = address(of: deviceID) else { return nil }
        plan.request(address, deviceID: deviceID)
        let token = UUID()
        _ = await TimedWait.value(timeout: timeout) { finish in
            device(deviceID).linkWaiters[token] = finish
            dialDue()
        }
        devices[deviceID]?.linkWaiters[token] = nil
        discardIfIdle(deviceID)
        guard let link = devices[deviceID]?.link, link.isOpen else { return nil }
        return link
    }

    /// Forgets a paired device: its pin, its offers, its fetches under way and the address
    /// it was dialed at for being paired.
    ///
    /// - Throws: when the paired devices cannot be saved; then nothing changes.
    func forget(_ deviceID: String) throws {
        try paired.forget(deviceID)
        if let device = devices[deviceID] {
            device.link?.isTrusted = false
            tellFeatures(device, .unpaired(reason: "\(deviceName(deviceID)) is no longer paired"))
        }
        plan.remove(device: deviceID, source: .paired)
        if let discovered = devices[deviceID]?.discovered {
            // Listed from its record again, as a stranger: not dialed for being announced.
            plan.remove(device: deviceID, source: .discovered)
            let host = PeerAddress.host(of: discovered.address) ?? discovered.address
            for other in discoveredQuota.admit(deviceID, from: host) ?? [] where other != deviceID {
                endDiscoveredListing(other)
            }
        }
        scheduleHousekeeping()
        discardIfIdle(deviceID)
        delegate?.peerGone(deviceID)
        delegate?.devicesChanged()
    }

    // MARK: Pairing (``PairingCoordinator``)

    /// What ``pairing`` does for the service's pairing methods.
    func pair(_ device: String) async throws -> (deviceID: String, code: String) { try await pairing.pair(device) }
    func confirmPairing(_ device: String, code: String) async throws -> Bool {
        try await pairing.confirmPairing(device, code: code)
    }
    func unpair(_ device: String) throws { try pairing.unpair(device) }
    func cancelPairing(_ device: String) throws { try pairing.cancelPairing(device) }

    // MARK: Messages

    /// Whether `deviceID` announced `capability` in its hello on the current link.
    func supports(_ capability: String, _ deviceID: String) -> Bool {
        devices[deviceID]?.supports(capability) ?? false
    }

    /// Sends a message to a paired, linked device; `false` when it is not linked, or when the
    /// message needs a capability the device did not announce.
    @discardableResult
    func send(_ message: PeerMessage, to deviceID: String, needing capability: String? = nil) -> Bool {
        if let capability, !supports(capability, deviceID) { return false }
        guard isPaired(deviceID), let link = devices[deviceID]?.link, link.isOpen else { return false }
        link.send(message)
        return true
    }
}
