import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// What links the daemon to its peers: local activities offered out, peers' offers listed
/// here, fetches answered, pairing requests shown.
extension Daemon {
    static func offerKey(_ id: String) -> String { "offer:\(id)" }
    static func deviceKey(_ deviceID: String) -> String { "device:\(deviceID)" }
    static func pairingKey(_ deviceID: String) -> String { "pair:\(deviceID)" }

    /// Shows a pairing request: the name the device gave itself and its short id, a warning
    /// when that name poses as a paired device's or this one's (``PeerNetwork/impersonated(by:)``),
    /// the code to type on that device (grouped, "093 954"), and Enter Code, which opens the
    /// Baton app to type the code that device shows. No action of the notification confirms.
    func showPairingRequest(from deviceID: String, code: String) {
        let shortID = PeerNetwork.shortID(deviceID)
        let name = network.claimedName(deviceID).flatMap { $0.isEmpty ? nil : $0 } ?? shortID
        var detail = ""
        var title = "Pairing request from “\(name)” (\(shortID))"
        if let impersonated = network.impersonated(by: deviceID) {
            title = "Pairing request from another device named “\(name)” (\(shortID))"
            detail += "Careful: this is not \(impersonated).\n"
        }
        detail += "If you asked “\(name)” to pair, type \(PairingCodeText.grouped(code)) there, then choose Enter Code to type the code "
            + "“\(name)” shows. Otherwise ignore this."
        notifier.show(key: Self.pairingKey(deviceID), title: title, detail: detail,
                      action: (id: Self.enterCodeAction, label: "Enter Code"))
    }

    /// The pairing notification's action: opens the Baton app, whose dialog takes the code.
    static let enterCodeAction = "enter-code"

    /// What this device offers the paired device `deviceID`: the one activity
    /// ``AppRegistry/offered`` chooses (the current activity of the app used last), unless
    /// Handoff is off, the device is blocked or the app is; else nothing.
    func offers(for deviceID: String) -> [PeerOffer] {
        let settings = settingsStore.settings
        guard settings.handoff, !settings.blockedDevices.contains(deviceID), let (app, published) = registry.offered,
              !settings.blockedApps.contains(app.appID) else { return [] }
        return PeerMessage.offersFitting([PeerOffer(id: published.listingID, summary: published.summary,
                                                    appID: app.appID, teamID: app.teamID)])
    }

    /// The key of the notification that shows `offer`: one per paired device, which shows
    /// that device's offer and is replaced when it changes; one per offer added on this
    /// device (`AddOffer`).
    static func notificationKey(_ offer: Offer) -> String {
        offer.peerDeviceID.map(deviceKey) ?? offerKey(offer.id)
    }

    /// Shows an offer's notification, in place of the one its device showed before: "Continue",
    /// or "Open in browser" where no app here continues it but it has a web page, with the
    /// icon of the app that continues it. Calm, as Handoff is:
    /// - a device's notification is shown when it starts offering something of another kind
    ///   (another app or activity type) than the one its notification shows; a change within
    ///   the same kind (the next message read) shows nothing new: the notification, which would
    ///   no longer say what Continue opens, goes (the offer stays listed);
    /// - nothing is shown for what this device just handed to that device (its own offer,
    ///   continued there, coming back), nor for a device's offer no app here can open that has
    ///   no web page;
    /// - its body names the device alone, with its short id only when another device here
    ///   has the same name.
    func notify(_ offer: Offer) {
        let key = Self.notificationKey(offer)
        let type = offer.summary.activityType
        let claimant = broker.claimantIcon(for: type, teamID: offer.teamID, webpageURL: offer.summary.webpageURL)
        let inApp = claimant != nil || broker.hasClaimant(for: type, teamID: offer.teamID, webpageURL: offer.summary.webpageURL)
        // Only an app verified for the type receives another device's activity; one added here
        // (`AddOffer`) may go to any claimant, as this user's own.
        let opensHere = inApp || offer.summary.webpageURL != nil || offer.peerDeviceID == nil
        guard settingsStore.settings.notifications == .on, isShown(offer), opensHere else {
            if notifiedOffers.removeValue(forKey: key)?.isShown == true { notifier.withdraw(key: key) }
            return
        }
        let from = "From " + (offer.peerDeviceID.map(notifiedName) ?? offer.device)
        let kind = NotifiedOffer.Kind(appID: offer.appID, activityType: type, from: from)
        if let notified = notifiedOffers[key], notified.kind == kind {
            if notified.isShown, notified.title != offer.summary.title {
                notifier.withdraw(key: key)
                notifiedOffers[key]?.isShown = false
            }
            notifiedOffers[key]?.id = offer.id
            notifiedOffers[key]?.title = offer.summary.title
            return
        }
        if let deviceID = offer.peerDeviceID, let handed = handedTo[deviceID], handed.matches(offer.summary) {
            // What this device just handed over, offered back: listed, never notified.
            if notifiedOffers[key]?.isShown == true { notifier.withdraw(key: key) }
            notifiedOffers[key] = NotifiedOffer(id: offer.id, title: offer.summary.title, kind: kind, isShown: false)
            return
        }
        notifiedOffers[key] = NotifiedOffer(id: offer.id, title: offer.summary.title, kind: kind, isShown: true)
        let label = !inApp && offer.summary.webpageURL != nil ? "Open in browser" : "Continue"
        // A page can go to a phone instead: the first reachable one, as a second button.
        let phone = offer.summary.webpageURL == nil ? nil : phones.all.first(where: \.isReachable)
        let title = offer.summary.title ?? (offer.summary.webpageURL != nil ? "a web page" : "an activity")
        notifier.show(key: key,
                      title: "\(label) “\(title)”",
                      detail: from,
                      action: (id: "continue", label: label), icon: claimant,
                      others: phone.map { [(id: Self.sendActionPrefix + $0.id, label: "Send to \($0.name)")] } ?? [])
    }

    /// Says, in a notification, that continuing `offer` from its notification failed, in plain
    /// words: the person clicked there, and the app that was to continue it may be behind.
    func notifyFailure(of offer: Offer, _ error: any Error) {
        let title = offer.summary.title ?? (offer.summary.webpageURL != nil ? "the web page" : "the activity")
        let device = offer.peerDeviceID.map(notifiedName) ?? offer.device
        let reason: String
        switch ServiceError.userActivityError(from: error) {
        case .connectionUnavailable, .remoteApplicationTimedOut:
            reason = "\(device) didn’t respond. Make sure it is awake and on the same network."
        case .cancelled:
            return
        default:
            reason = "It could not be continued on this computer."
        }
        notifier.show(key: Self.failureKey, title: "Couldn’t Continue “\(title)”", detail: reason, action: nil)
    }

    /// The key of the notification that says a continuation from a notification failed: one
    /// at a time, the latest in place of the one before.
    static let failureKey = "failed"

    /// A device's name as its notification shows it, quoted: alone, or with its short id when
    /// another device here goes by the same name.
    private func notifiedName(_ deviceID: String) -> String {
        let name = network.deviceName(deviceID)
        let shared = network.knownDevices.contains { $0 != deviceID && network.deviceName($0) == name }
        return shared ? network.displayName(deviceID) : "“\(name)”"
    }

    /// The notification that showed offer `offerID` was used: it goes, and the same kind from
    /// its device is not shown again until the device offers another.
    func notificationUsed(_ offerID: String) {
        guard let offer = offers.offers[offerID] else { return }
        let key = Self.notificationKey(offer)
        guard notifiedOffers[key]?.isShown == true else { return }
        notifiedOffers[key]?.isShown = false
        notifier.withdraw(key: key)
    }

    /// Withdraws the notification of `offer`, if it shows that offer.
    func withdrawNotification(of offer: Offer) {
        let key = Self.notificationKey(offer)
        guard let notified = notifiedOffers[key], notified.id == offer.id else { return }
        notifiedOffers[key] = nil
        if notified.isShown { notifier.withdraw(key: key) }
    }

    /// The person picked a notification's action: only offers have one (pairing is never
    /// confirmed from a notification).
    /// The start of a notification action that sends the offer's page to a phone: then its id.
    static let sendActionPrefix = "send:"

    func notificationAction(_ key: String, _ action: String, activationToken: String?) {
        if key.hasPrefix("pair:"), action == Self.enterCodeAction {
            do {
                try BatonAppEntry.openForPairing(activationToken: activationToken)
            } catch {
                logger.notice("cannot open the Baton app to enter a pairing code: \(error); type it with baton pair --confirm")
            }
            return
        }
        guard let offerID = notifiedOffers[key]?.id else { return }
        if action.hasPrefix(Self.sendActionPrefix) {
            sendFromNotification(offerID, toPhone: String(action.dropFirst(Self.sendActionPrefix.count)))
            return
        }
        guard action == "continue" else { return }
        continueFromNotification(offerID, activationToken: activationToken)
    }

    func isCurrent(_ key: String) -> Bool {
        if let notified = notifiedOffers[key] { return notified.isShown && offers.offers[notified.id] != nil }
        if key.hasPrefix("pair:") { return network.devices[String(key.dropFirst("pair:".count))]?.pairing != nil }
        if key == Self.failureKey { return true }
        return false
    }

    /// Lists a paired device's offers in place of its earlier ones, and notifies the new ones.
    private func replaceOffers(of deviceID: String, named deviceName: String, with peerOffers: [PeerOffer]) {
        let incoming = peerOffers.map {
            Offer(id: $0.id, summary: $0.summary, appID: $0.appID, teamID: $0.teamID, device: deviceName,
                  origin: .peer(deviceID: deviceID))
        }
        let (added, _) = offers.replace(from: deviceID, with: incoming)
        for offer in added {
            network.log(.info, from: deviceID, "\(deviceName) offers \(offer.summary.activityType) (\(offer.id))")
        }
        // One notification for the device: its most recent offer listed, or none.
        latestOffers[deviceID] = incoming.first { offers.offers[$0.id]?.peerDeviceID == deviceID }?.id
        refreshNotification(of: deviceID)
    }
}

/// The offer a notification key stands for: the offer its Continue continues, the kind it
/// shows (a new kind replaces the notification; the same kind does not), and whether it is on
/// screen.
struct NotifiedOffer: Equatable {
    /// What a notification shows of its device's offers: the app, the activity type and the
    /// line that names the device.
    struct Kind: Equatable {
        let appID: String?
        let activityType: String
        let from: String
    }

    var id: String
    /// The title of the offer it stands for.
    var title: String?
    let kind: Kind
    var isShown: Bool
}

/// What this device just handed to a paired device: when the same comes back from it as an
/// offer (its app publishing what it continued), it is listed without a notification.
struct HandedOver {
    let activityType: String
    let title: String?
    let at: Double

    /// How long an offer coming back counts as what was handed over.
    static let lifetime = 120.0

    func matches(_ summary: ActivitySummary, now: Double = MonotonicClock.now) -> Bool {
        now - at <= Self.lifetime && summary.activityType == activityType && summary.title == title
    }
}

/// What the network reports: the daemon turns it into offers, notifications and signals, and
/// answers fetches through the broker, the one route a payload takes out of this device.
extension Daemon: PeerNetworkDelegate {
    func peer(_ device: PeerDevice, offered offers: [PeerOffer]) {
        replaceOffers(of: device.id, named: network.deviceName(device.id), with: offers)
    }

    func peerGone(_ deviceID: String) {
        replaceOffers(of: deviceID, named: "", with: [])
    }

    func payloadRequested(for activityID: String, by deviceID: String) async -> Result<FetchedPayload, UserActivityError> {
        do {
            guard case .local(let app, let published)? = try? source(activityID) else {
                return .failure(.handoffFailed("the activity \(activityID) is no longer offered"))
            }
            let settings = settingsStore.settings
            guard settings.handoff, !settings.blockedDevices.contains(deviceID), !settings.blockedApps.contains(app.appID) else {
                return .failure(.handoffFailed("the activity \(activityID) is not offered to this device"))
            }
            let bytes = try await broker.fetch(.local(app, published))
            let document = await sharedDocuments.describe(bytes, of: app, activityID: activityID, to: deviceID)
            return .success(FetchedPayload(bytes: bytes, document: document))
        } catch {
            return .failure(ServiceError.userActivityError(from: error))
        }
    }

    func peer(_ device: PeerDevice, continued activityID: String) {
        guard let (app, published) = registry.published(activityID) else { return }
        network.log(.info, from: device.id,
                    "\(network.deviceName(device.id)) continued \(published.summary.activityType) of \(app.appID)")
        handedTo[device.id] = HandedOver(activityType: published.summary.activityType, title: published.summary.title,
                                         at: MonotonicClock.now)
        let name = network.deviceName(device.id)
        Task { @MainActor in await broker.tellContinued(app, published, on: name) }
    }

    func pairingRequested(by device: PeerDevice, code: String) {
        showPairingRequest(from: device.id, code: code)
    }

    func pairingEnded(with deviceID: String) {
        notifier.withdraw(key: Self.pairingKey(deviceID))
    }

    func streamRequested(for activityID: String, by deviceID: String) async -> Result<BusFileDescriptor, UserActivityError> {
        if let documentOf = PeerDocument.activityID(fromStreamActivityID: activityID) {
            let settings = settingsStore.settings
            guard settings.handoff, !settings.blockedDevices.contains(deviceID) else {
                return .failure(.handoffFailed("documents are not sent to this device"))
            }
            do {
                return .success(try sharedDocuments.stream(of: documentOf, to: deviceID, name: network.deviceName(deviceID)))
            } catch {
                return .failure(ServiceError.userActivityError(from: error))
            }
        }
        guard let (app, published) = registry.published(activityID) else {
            return .failure(.connectionUnavailable("the activity \(activityID) is no longer offered"))
        }
        do {
            return .success(try await broker.handStream(to: app, activityID: published.appActivityID,
                                                        for: network.deviceName(deviceID)))
        } catch {
            return .failure(ServiceError.userActivityError(from: error))
        }
    }

    func peerRenamed(_ device: PeerDevice) {
        offers.rename(device: device.id, to: network.deviceName(device.id))
        refreshNotification(of: device.id)
    }

    /// This device was renamed: a paired device whose name now poses as this device's is
    /// shown with its short id (``PeerNetwork/deviceName(_:)``), in its offers too, so no
    /// copy of a document is ever said to come from this device's name.
    func thisDeviceRenamed() {
        for deviceID in network.paired.devices.keys {
            offers.rename(device: deviceID, to: network.deviceName(deviceID))
        }
    }

    func devicesChanged() {
        connection.emitSignal(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              name: "DevicesChanged")
    }
}

/// What the broker asks of the network: payloads of paired devices' offers, and telling a
/// device its activity was continued here.
extension Daemon: ContinuationBrokerDelegate {
    func payload(of offer: Offer, from deviceID: String) async throws -> FetchedPayload {
        try await network.features.fetch.fetch(offer.id, from: deviceID)
    }

    func continued(_ offer: Offer, from deviceID: String) {
        network.send(.continued(activityID: offer.id), to: deviceID)
    }

    func openStream(_ end: BusFileDescriptor, to offer: Offer, from deviceID: String) async throws {
        try await network.features.streams.open(end, activityID: offer.id, on: deviceID)
    }

    func openDocumentStream(_ end: BusFileDescriptor, to offer: Offer, from deviceID: String) async throws {
        try await network.features.streams.open(end, activityID: PeerDocument.streamActivityID(for: offer.id), on: deviceID)
    }
}
