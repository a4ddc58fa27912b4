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
    /// Where devices listen, from their hello: `HOST:PORT`.
    private(set) var addresses: [String: String] = [:]
    private var introductions: [ObjectIdentifier: PeerLink] = [:]
    /// Incoming TLS handshakes under way, by the address they come from.
    private var handshakes: [String: Int] = [:]
    var pairings: [String: PairingSession] = [:]
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

    /// The most links still waiting for their hello, and the most links in all: past that,
    /// only paired devices are let in.
    static let maximumIntroductions = 32
    /// The most incoming handshakes at once from one address, so that one host cannot take
    /// all ``maximumIntroductions`` places and keep paired devices out.
    static let maximumHandshakesPerAddress = 4
    static let maximumLinks = 64
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
    var onPairingRequest: (_ deviceID: String, _ deviceName: String, _ code: String) -> Void = { _, _, _ in }
    /// A pairing ended (paired, cancelled or timed out).
    var onPairingEnded: (_ deviceID: String) -> Void = { _ in }
    /// Devices appeared, left, paired or unpaired.
    var onChange: () -> Void = {}

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
        dialTimer = GLibSources.every(milliseconds: 500) { [weak self] in self?.dialDue() }
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
        names[deviceID] ?? paired.devices[deviceID]?.name ?? String(deviceID.prefix(8))
    }

    /// The devices known now: linked ones and paired ones.
    var knownDevices: [String] {
        Set(links.keys).union(paired.devices.keys).sorted()
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
            throw ServiceError.unknownDevice("several devices are named \"\(text)\": use an id (\(named.joined(separator: ", ")))")
        }
        let prefixed = known.filter { $0.hasPrefix(text.lowercased()) && text.count >= 4 }
        if prefixed.count == 1, let id = prefixed.first { return id }
        throw ServiceError.unknownDevice("no device named or numbered \"\(text.prefix(80))\": see baton devices")
    }

    // MARK: Links

    private func accept(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        let host = PeerLink.remote(of: connection).host
        guard handshakes.values.reduce(0, +) < Self.maximumIntroductions,
              handshakes[host, default: 0] < Self.maximumHandshakesPerAddress else {
            logger.debug("incoming connection from \(host) refused: too many handshakes under way")
            var error: UnsafeMutablePointer<GError>?
            if g_io_stream_close(UnsafeMutablePointer(OpaquePointer(connection)), nil, &error) == 0 { g_clear_error(&error) }
            g_object_unref(UnsafeMutableRawPointer(connection))
            return
        }
        handshakes[host, default: 0] += 1
        Task { @MainActor in
            defer {
                handshakes[host, default: 1] -= 1
                if handshakes[host] == 0 { handshakes[host] = nil }
            }
            do {
                adopt(try await tls.accept(connection), dialed: nil)
            } catch {
                logger.debug("incoming link refused: \(error)")
            }
        }
    }

    private func dialDue() {
        for address in plan.due(isLinked: isLinked) {
            Task { @MainActor in
                do {
                    let link = try await tls.connect(to: address)
                    plan.finished(address, deviceID: link.peerDeviceID == identity.deviceID ? nil : link.peerDeviceID)
                    adopt(link, dialed: address)
                } catch {
                    plan.finished(address, deviceID: nil)
                    logger.debug("dialing \(address) failed: \(error)")
                }
            }
        }
    }

    private func adopt(_ link: PeerLink, dialed: String?) {
        guard link.peerDeviceID != identity.deviceID else {
            link.close("this device")
            return
        }
        guard isPaired(link.peerDeviceID) || introductions.count < Self.maximumIntroductions else {
            link.close("too many links waiting for their hello")
            return
        }
        introductions[ObjectIdentifier(link)] = link
        link.onMessage = { [weak self, weak link] message in
            guard let self, let link else { return }
            self.received(message, on: link)
        }
        link.onClose = { [weak self, weak link] reason in
            guard let self, let link else { return }
            self.closed(link, reason: reason)
        }
        link.start()
        link.send(.hello(PeerHello(deviceID: identity.deviceID, name: name, port: UInt32(listener?.port ?? 0))))
        GLibSources.once(after: tls.handshakeTimeout) { [weak self, weak link] in
            guard let self, let link, self.introductions.removeValue(forKey: ObjectIdentifier(link)) != nil else { return }
            link.close("no hello")
        }
    }

    private func received(_ message: PeerMessage, on link: PeerLink) {
        let deviceID = link.peerDeviceID
        if introductions[ObjectIdentifier(link)] != nil {
            introductions[ObjectIdentifier(link)] = nil
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
        guard isPaired(deviceID) || links[deviceID] != nil || links.count < Self.maximumLinks else {
            return drop(link, "too many links")
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
        let address = hello.port == 0 ? nil : PeerAddress.format(host: link.remoteHost, port: hello.port)
        addresses[deviceID] = address
        logger.info("linked with \(hello.name) (\(deviceID)) at \(link.remoteAddress)\(isPaired(deviceID) ? ", paired" : "")")
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
        logger.notice("closing the link with \(link.remoteAddress): \(reason)")
        link.close(reason)
        closed(link, reason: reason)
    }

    private func closed(_ link: PeerLink, reason: String) {
        introductions[ObjectIdentifier(link)] = nil
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
        logger.info("link with \(deviceName(deviceID)) closed: \(reason)")
        failFetches(of: deviceID, "the link with \(deviceName(deviceID)) closed: \(reason)")
        if pairings[deviceID] != nil { endPairing(deviceID, sending: nil, because: "the link closed: \(reason)") }
        if !isPaired(deviceID) {
            names[deviceID] = nil
            addresses[deviceID] = nil
        }
        plan.lost(deviceID, after: Date().timeIntervalSince(link.openedAt))
        onDeviceGone(deviceID)
        onChange()
    }

    /// Dials `deviceID` at `address` again whenever its link is lost.
    func redial(_ deviceID: String, at address: String) {
        plan.add(address, deviceID: deviceID, source: .paired)
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

    /// Sends a message to a paired, linked device; `false` when it is not linked.
    @discardableResult
    func send(_ message: PeerMessage, to deviceID: String) -> Bool {
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
