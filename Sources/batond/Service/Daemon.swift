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
    /// The session bus, where `org.baton.Daemon1` is served.
    let connection: BusConnection
    /// The apps registered here and what each published.
    let registry = AppRegistry()
    /// What other devices and this one's tools offer to continue here.
    let offers = OfferList()
    /// Continuations, from the claim to the restore.
    let broker: ContinuationBroker
    /// The desktop's notifications, beneath every feature's.
    let notifier: Notifier
    /// The web domains apps claim, and what their sites say.
    let domains: DomainVerifier
    /// The phones paired with KDE Connect, GSConnect or Valent here.
    let phones: PhoneDevices
    /// The documents described to paired devices, which they may fetch.
    let sharedDocuments: SharedDocuments
    /// The document of the desktop's recent list offered when no adopting app is in use.
    let recentDocuments: RecentDocuments
    /// The links with other devices, and the features they carry.
    let network: PeerNetwork
    /// batond's log.
    let logger: Logger
    /// The notifications of offers: shown, replaced, withdrawn, and their actions.
    let offerNotifications: OfferNotifications
    /// The continuations callers started and may cancel.
    let continueCalls = ContinueCalls()
    /// The offer of the link each phone shared last, by phone id: one per phone.
    var phoneOffers: [String: String] = [:]
    /// What the person decided (Handoff on or off, quiet, blocked devices and apps).
    let settingsStore: SettingsStore
    /// Whether batond's `--name` gave this device's name, so that `SetDeviceName` is refused.
    var isNameFixed = false
    /// Where DNS-SD discovery stands, for `Diagnose`.
    var discoveryStatus: () -> DiagnosticCheck = { .fail("discovery", "not started", fix: "") }
    /// The tailnet's devices read from tailscaled, when batond reads them.
    var tailnet: TailnetWatcher?
    /// Which clipboard the clipboard feature uses, or why none (``startClipboard(environment:)``).
    var clipboardSide = "not started"

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
        recentDocuments = RecentDocuments(logger: logger)
        offerNotifications = OfferNotifications(notifier: notifier, offers: offers, broker: broker, phones: phones,
                                                network: network, settings: settings)
        registry.onChange = { [weak self] in
            self?.activitiesChanged()
            self?.network.features.offers.changed()
        }
        offers.onChange = { [weak self] in self?.activitiesChanged() }
        offers.onExpire = { [weak self] offer in self?.offerNotifications.withdraw(offer) }
        offers.onRefused = { [weak self] offer, error in
            let line = "an offer from \(Excerpt.of(offer.device)) is not listed: \(error)"
            // A paired device's go through its log budget: no device can fill the log.
            if let deviceID = offer.peerDeviceID {
                self?.network.log(.notice, from: deviceID, line)
            } else {
                self?.logger.notice("\(line)")
            }
        }
        notifier.onAction = { [weak self] key, action, token in
            if Self.isPairingKey(key) {
                self?.pairingNotificationAction(action, activationToken: token)
            } else {
                self?.offerNotifications.actionPicked(key, action, activationToken: token)
            }
        }
        notifier.isCurrent = { [weak self] key in
            guard let self else { return false }
            return Self.isPairingKey(key) ? isPairingShown(key) : offerNotifications.isCurrent(key)
        }
        offerNotifications.onContinue = { [weak self] offerID, token in
            self?.continueFromNotification(offerID, activationToken: token)
        }
        offerNotifications.onSendToPhone = { [weak self] offerID, phoneID in
            self?.sendFromNotification(offerID, toPhone: phoneID)
        }
        broker.delegate = self
        network.delegate = self
        phones.delegate = self
    }

    /// Exports the object, starts following connections that leave the bus, and the phone
    /// services.
    func start() throws {
        phones.start()
        recentDocuments.isOfAdoptingApp = { [weak self] entry in self?.isOfAdoptingApp(entry) ?? false }
        // An adopting app that registers after its document entered the list takes it back.
        registry.onAppsChanged = { [weak self] in self?.recentDocuments.refreshSoon() }
        recentDocuments.onChange = { [weak self] in
            self?.activitiesChanged()
            self?.network.features.offers.changed()
        }
        recentDocuments.isEnabled = { [settingsStore] in settingsStore.settings.recentDocuments }
        recentDocuments.isBlocked = { [settingsStore] program in settingsStore.settings.blockedApps.contains(program) }
        recentDocuments.start()
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

    private func connectionLeft(_ busName: String) {
        guard let app = registry.apps[busName] else { return }
        registry.remove(busName: busName)
        logger.info("\(app.appID) (\(busName)) left the bus")
    }

    func activitiesChanged() {
        connection.emitSignal(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              name: "ActivitiesChanged")
    }
}
