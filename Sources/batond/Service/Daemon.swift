import Baton
import BatonBus
import BatonGLib
import Foundation
import Logging

/// batond's `org.baton.Daemon1` object: registrations, current activities, offers,
/// fetches and continuations.
///
/// Every call is checked before anything changes; a bad call gets a D-Bus error and the
/// service goes on.
@MainActor
final class Daemon {
    let connection: BusConnection
    let registry = AppRegistry()
    let offers = OfferList()
    let broker: ContinuationBroker
    let notifier: Notifier
    /// The web domains apps claim, and what their sites say.
    let domains: DomainVerifier
    /// The phones paired with KDE Connect, GSConnect or Valent here.
    let phones: PhoneDevices
    /// The documents described to paired devices, which they may fetch.
    let sharedDocuments: SharedDocuments
    let network: PeerNetwork
    let logger: Logger
    /// The offer each notification shows, by notification key (``notificationKey(_:)``).
    var notifiedOffers: [String: NotifiedOffer] = [:]
    /// What this device last handed to each paired device, by device id.
    var handedTo: [String: HandedOver] = [:]
    /// The offer of the link each phone shared last, by phone id: one per phone.
    var phoneOffers: [String: String] = [:]
    /// Each paired device's most recent offer listed, by device id.
    var latestOffers: [String: String] = [:]
    /// What the person decided (Handoff on or off, quiet, blocked devices and apps).
    let settingsStore: SettingsStore
    /// Whether batond's `--name` gave this device's name, so that `SetDeviceName` is refused.
    var isNameFixed = false
    /// Where DNS-SD discovery stands, for `Diagnose`.
    var discoveryStatus: () -> DiagnosticCheck = { .fail("discovery", "not started", fix: "") }
    /// The tailnet's devices read from tailscaled, when batond reads them.
    var tailnet: TailnetWatcher?

    init(connection: BusConnection, network: PeerNetwork, settings: SettingsStore, domains: DomainVerifier,
         timeouts: Timeouts, logger: Logger) {
        settingsStore = settings
        self.domains = domains
        phones = PhoneDevices(bridges: [
            KDEConnectBridge(connection: connection, logger: logger),
            ActionsPhoneBridge(.gsconnect, connection: connection, logger: logger),
            ActionsPhoneBridge(.valent, connection: connection, logger: logger),
        ])
        self.connection = connection
        self.network = network
        self.logger = logger
        broker = ContinuationBroker(connection: connection, registry: registry, timeouts: timeouts, logger: logger)
        broker.domainClaimants = { [domains] url in domains.verifiedApps(for: url) }
        notifier = Notifier(connection: connection, logger: logger)
        let continuedDocuments = ContinuedDocuments()
        broker.continuedDocuments = continuedDocuments
        sharedDocuments = SharedDocuments(logger: logger, continuedDocuments: continuedDocuments)
        registry.onChange = { [weak self] in
            self?.activitiesChanged()
            self?.network.features.offers.changed()
        }
        offers.onChange = { [weak self] in self?.activitiesChanged() }
        offers.onExpire = { [weak self] offer in self?.withdrawNotification(of: offer) }
        offers.onRefused = { [weak self] offer, error in
            let line = "an offer from \(Excerpt.of(offer.device)) is not listed: \(error)"
            // A paired device's go through its log budget: no device can fill the log.
            if let deviceID = offer.peerDeviceID {
                self?.network.log(.notice, from: deviceID, line)
            } else {
                self?.logger.notice("\(line)")
            }
        }
        notifier.onAction = { [weak self] key, action, token in self?.notificationAction(key, action, activationToken: token) }
        notifier.isCurrent = { [weak self] key in self?.isCurrent(key) ?? false }
        broker.delegate = self
        network.delegate = self
        phones.delegate = self
    }

    /// Exports the object, starts following connections that leave the bus, and the phone
    /// services.
    func start() throws {
        phones.start()
        try connection.export(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              introspectionXML: BatonService.daemonIntrospectionXML) { [weak self] call in
            self?.handle(call)
        }
        connection.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                             member: "NameOwnerChanged", path: "/org/freedesktop/DBus") { [weak self] _, arguments in
            guard arguments.count == 3, let name = arguments.at(0)?.string, let newOwner = arguments.at(2)?.string,
                  name.hasPrefix(":"), newOwner.isEmpty else { return }
            self?.connectionLeft(name)
        }
    }

    private func handle(_ call: BusMethodCall) {
        let arguments = call.arguments
        do {
            switch call.method {
            case "Register":
                guard let appID = arguments.at(0)?.string, let teamID = arguments.at(1)?.string,
                      let types = arguments.at(2)?.strings else { throw ServiceError.invalidArguments("expected (s, s, as)") }
                try register(call, appID: appID, teamID: teamID, activityTypes: types)
            case "PublishCurrent":
                guard let id = arguments.at(0)?.string, let record = arguments.at(1)?.dictionary else {
                    throw ServiceError.invalidArguments("expected (s, a{sv})")
                }
                try registry.publish(busName: call.sender, appActivityID: id, summary: ActivitySummary(record: record))
                call.reply()
            case "ResignCurrent":
                try registry.resign(busName: call.sender)
                call.reply()
            case "SetActive":
                guard let active = arguments.at(0)?.bool else { throw ServiceError.invalidArguments("expected (b)") }
                try registry.setActive(busName: call.sender, active)
                call.reply()
            case "GetStatus":
                call.reply([.dictionary(status)])
            case "ListActivities":
                call.reply([.dictionaries(activityRecords)])
            case "ListApps":
                call.reply([.dictionaries(appRecords)])
            case "Inspect":
                guard let (app, published) = registry.latest else {
                    throw ServiceError.unknownActivity("(current)")
                }
                answer(call) { [broker] in
                    [.bytes(try await broker.save(app, activityID: published.appActivityID,
                                                  type: published.summary.activityType))]
                }
            case "Fetch":
                let source = try source(arguments.at(0)?.string ?? "")
                answer(call) { [broker] in [.bytes(try await broker.fetch(source))] }
            case "Continue", "ContinueWithOptions":
                let offerID = arguments.at(0)?.string ?? ""
                let token = try Self.activationToken(in: call.method == "Continue" ? [:] : arguments.at(1)?.dictionary)
                let source = try source(offerID)
                notificationUsed(offerID)
                answer(call) { [broker] in
                    try await broker.continueActivity(source, activationToken: token)
                    return []
                }
            case "ContinuePayload":
                guard let bytes = arguments.at(0)?.bytes, let options = arguments.at(1)?.dictionary else {
                    throw ServiceError.invalidArguments("expected (ay, a{sv})")
                }
                let payload = try ContinuationBroker.decode(bytes)
                let teamID = try Self.option(options, "team-id")
                answer(call) { [broker] in
                    try await broker.continueActivity(.payload(bytes, payload, teamID: teamID))
                    return []
                }
            case "OpenContinuationStream":
                guard let token = arguments.at(0)?.string else { throw ServiceError.invalidArguments("expected (s)") }
                let open = try broker.streamOpener(token: token, caller: call.sender)
                answer(call) { [.fileDescriptor(try await open())] }
            case "AddOffer":
                guard let bytes = arguments.at(0)?.bytes, let options = arguments.at(1)?.dictionary else {
                    throw ServiceError.invalidArguments("expected (ay, a{sv})")
                }
                let offer = Offer(id: ListingID.make(), summary: ActivitySummary(try ContinuationBroker.decode(bytes)),
                                  appID: try Self.option(options, "app-id"), teamID: try Self.option(options, "team-id"),
                                  device: try Self.option(options, "device") ?? "this device", origin: .held(bytes))
                try offers.add(offer)
                logger.info("offer \(offer.id) added: \(offer.summary.activityType)")
                notify(offer)
                call.reply([.string(offer.id)])
            case "RemoveOffer":
                let id = arguments.at(0)?.string ?? ""
                guard let offer = offers.offers[id], offer.peerDeviceID == nil else {
                    throw ServiceError.unknownActivity(id)
                }
                offers.remove(id)
                withdrawNotification(of: offer)
                call.reply()
            case "ListDevices":
                call.reply([.dictionaries(deviceRecords)])
            case "Pair":
                let device = arguments.at(0)?.string ?? ""
                answer(call) { [network] in
                    let (deviceID, code) = try await network.pair(device)
                    return [.string(deviceID), .string(code)]
                }
            case "ConfirmPair":
                guard let device = arguments.at(0)?.string, let code = arguments.at(1)?.string else {
                    throw ServiceError.invalidArguments("expected (s, s)")
                }
                answer(call) { [network] in [.bool(try await network.confirmPairing(device, code: code))] }
            case "Unpair":
                try network.unpair(arguments.at(0)?.string ?? "")
                call.reply()
            case "CancelPair":
                try network.cancelPairing(arguments.at(0)?.string ?? "")
                call.reply()
            case "GetSettings", "SetHandoff", "SetNotifications", "SetDeviceBlocked", "SetAppBlocked", "SetDeviceName":
                try handleSettings(call)
            case "Diagnose":
                answer(call) { [.dictionaries(await self.diagnosis().map(\.record))] }
            case "SendToDevice":
                guard let id = arguments.at(0)?.string, let device = arguments.at(1)?.string else {
                    throw ServiceError.invalidArguments("expected (s, s)")
                }
                try sendToDevice(call, activityID: id, device: device)
            case "ListDomains":
                call.reply([.dictionaries(domainRecords)])
            case "VerifyDomains":
                answer(call) { [domains] in
                    await domains.verifyAll()
                    return [.dictionaries(self.domainRecords)]
                }
            default:
                call.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.method)")
            }
        } catch {
            call.fail(with: error)
        }
    }

    /// Runs `work` and answers the call with its result or error.
    func answer(_ call: BusMethodCall, _ work: @escaping @MainActor () async throws -> [BusValue]) {
        Task { @MainActor in
            do {
                call.reply(try await work())
            } catch {
                call.fail(with: error)
            }
        }
    }

    /// The activity listed under `id`: a local current activity or an offer.
    func source(_ id: String) throws -> ActivitySource {
        if let (app, published) = registry.published(id) {
            guard published.summary.isEligibleForHandoff, !published.summary.isExpired() else {
                throw ServiceError.activity(.handoffFailed("the activity \(id) is not eligible for Handoff"))
            }
            return .local(app, published)
        }
        if let offer = offers.offers[id], !offer.summary.isExpired(), isShown(offer) { return .offer(offer) }
        throw ServiceError.unknownActivity(id)
    }

    func continueFromNotification(_ offerID: String, activationToken: String? = nil) {
        guard let source = try? source(offerID) else { return }
        let offer = offers.offers[offerID]
        notificationUsed(offerID)
        Task { @MainActor in
            do {
                try await broker.continueActivity(source, activationToken: activationToken)
            } catch {
                logger.notice("continuing offer \(offerID) failed: \(error)")
                // Said where the person clicked: in a notification, in plain words.
                if let offer { notifyFailure(of: offer, error) }
            }
        }
    }

    private func connectionLeft(_ busName: String) {
        guard let app = registry.apps[busName] else { return }
        registry.remove(busName: busName)
        logger.info("\(app.appID) (\(busName)) left the bus")
    }

    func activitiesChanged() {
        connection.emitSignal(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              name: "ActivitiesChanged")
    }

    /// The caller's activation token among `ContinueWithOptions`' options, if it gave one.
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` for options that are not `a{sv}`, or a
    ///   token that is not a string batond passes on.
    private static func activationToken(in options: [String: BusValue]?) throws -> String? {
        guard let options else { throw ServiceError.invalidArguments("expected (s, a{sv})") }
        guard let value = options[BatonService.continueActivationTokenKey] else { return nil }
        guard let token = value.string, BatonService.isAcceptableActivationToken(token) else {
            throw ServiceError.invalidArguments("option \"\(BatonService.continueActivationTokenKey)\" must be a string of 1 to "
                + "\(BatonService.maximumActivationTokenLength) bytes without control characters")
        }
        return token
    }

    private static func option(_ options: [String: BusValue], _ key: String) throws -> String? {
        guard let value = options[key] else { return nil }
        guard let text = value.string, !text.isEmpty, text.utf8.count <= 255 else {
            throw ServiceError.invalidArguments("option \"\(key)\" must be a string of 1 to 255 bytes")
        }
        return text
    }
}
