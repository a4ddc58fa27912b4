import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// What links the daemon to its peers: local activities offered out, peers' offers listed
/// here, fetches answered, pairing requests shown.
extension Daemon {
    static func offerKey(_ id: String) -> String { "offer:\(id)" }
    static func pairingKey(_ deviceID: String) -> String { "pair:\(deviceID)" }

    func connectNetwork() {
        network.currentOffers = { [weak self] in self?.localOffers ?? [] }
        network.onOffers = { [weak self] deviceID, deviceName, offers in
            self?.peerOffered(offers, by: deviceID, named: deviceName)
        }
        network.onDeviceGone = { [weak self] deviceID in
            self?.peerOffered([], by: deviceID, named: "")
        }
        network.onFetch = { [weak self] activityID in
            guard let self else { return .failure(.connectionUnavailable("batond is stopping")) }
            return await self.answerFetch(activityID)
        }
        network.onContinued = { [weak self] activityID, deviceName in
            guard let self, let (app, published) = self.registry.published(activityID) else { return }
            self.logger.info("\(deviceName) continued \(published.summary.activityType) of \(app.appID)")
            Task { @MainActor in await self.broker.tellContinued(app, published) }
        }
        network.onPairingRequest = { [weak self] deviceID, code in
            self?.showPairingRequest(from: deviceID, code: code)
        }
        network.onPairingEnded = { [weak self] deviceID in
            self?.notifier.withdraw(key: Self.pairingKey(deviceID))
        }
        network.onChange = { [weak self] in
            guard let self else { return }
            self.connection.emitSignal(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                                       name: "DevicesChanged")
        }
    }

    /// Shows a pairing request: the device's name and short id, a warning when it uses the
    /// name of a paired device or of this one, the code to type on that device, and what to
    /// run here with the code it shows. No action of the notification confirms.
    func showPairingRequest(from deviceID: String, code: String) {
        let shortID = PeerNetwork.shortID(deviceID)
        let name = network.deviceName(deviceID)
        var detail = ""
        var title = "Pairing request from “\(name)” (\(shortID))"
        if let impersonated = network.impersonated(by: deviceID) {
            title = "Pairing request from another device named “\(name)” (\(shortID))"
            detail += "Careful: this is not \(impersonated).\n"
        }
        detail += "If you asked “\(name)” to pair, type \(code) there, then type the code “\(name)” shows "
            + "here: baton pair --confirm \(shortID) CODE. Otherwise ignore this."
        notifier.show(key: Self.pairingKey(deviceID), title: title, detail: detail, action: nil)
    }

    /// This device's current activities as offers: eligible and unexpired ones only, the
    /// most recent first, as many as one message carries.
    var localOffers: [PeerOffer] {
        PeerMessage.offersFitting(registry.offerable.map {
            PeerOffer(id: $0.1.listingID, summary: $0.1.summary, appID: $0.0.appID, teamID: $0.0.teamID)
        })
    }

    /// Shows an offer's notification: "Continue", or "Open in browser" where no app here
    /// continues it but it has a web page.
    func notify(_ offer: Offer) {
        let inApp = broker.hasClaimant(for: offer.summary.activityType, teamID: offer.teamID)
        let label = !inApp && offer.summary.webpageURL != nil ? "Open in browser" : "Continue"
        notifier.show(key: Self.offerKey(offer.id),
                      title: "\(label) “\(offer.summary.title ?? offer.summary.activityType)”",
                      detail: "From \(offer.peerDeviceID.map(network.displayName) ?? offer.device)",
                      action: (id: "continue", label: label))
    }

    /// The person picked a notification's action: only offers have one (pairing is never
    /// confirmed from a notification).
    func notificationAction(_ key: String, _ action: String) {
        guard key.hasPrefix("offer:"), action == "continue" else { return }
        continueFromNotification(String(key.dropFirst("offer:".count)))
    }

    func isCurrent(_ key: String) -> Bool {
        if key.hasPrefix("offer:") { return offers.offers[String(key.dropFirst("offer:".count))] != nil }
        if key.hasPrefix("pair:") { return network.pairings[String(key.dropFirst("pair:".count))] != nil }
        return false
    }

    private func peerOffered(_ peerOffers: [PeerOffer], by deviceID: String, named deviceName: String) {
        let incoming = peerOffers.map {
            Offer(id: $0.id, summary: $0.summary, appID: $0.appID, teamID: $0.teamID, device: deviceName,
                  origin: .peer(deviceID: deviceID))
        }
        let (added, withdrawn) = offers.replace(from: deviceID, with: incoming)
        for offer in withdrawn { notifier.withdraw(key: Self.offerKey(offer.id)) }
        for offer in added {
            logger.info("\(deviceName) offers \(offer.summary.activityType) (\(offer.id))")
            notify(offer)
        }
    }

    /// The payload of one of this device's current activities, for a paired peer.
    private func answerFetch(_ activityID: String) async -> Result<[UInt8], UserActivityError> {
        do {
            guard case .local(let app, let published)? = try? source(activityID) else {
                return .failure(.handoffFailed("the activity \(activityID) is no longer offered"))
            }
            return .success(try await broker.fetch(.local(app, published)))
        } catch {
            return .failure(ServiceError.userActivityError(from: error))
        }
    }
}
