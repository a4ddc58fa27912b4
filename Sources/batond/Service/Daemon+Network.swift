import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// What links the daemon to its peers: local activities offered out, peers' offers listed
/// here (their notifications through ``OfferNotifications``), fetches answered, pairing requests shown.
extension Daemon {
    /// What this device offers the paired device `deviceID`: the one activity
    /// ``AppRegistry/offered`` chooses (the current activity of the app used last), unless
    /// Handoff is off, the device is blocked or the app is; else nothing.
    func offers(for deviceID: String) -> [PeerOffer] {
        guard let offered = offeredNow, settingsStore.policy.allows(app: offered.appID, to: deviceID) else { return [] }
        return PeerMessage.offersFitting([PeerOffer(id: offered.listingID, summary: offered.summary,
                                                    appID: offered.appID, teamID: offered.teamID)])
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
        offerNotifications.showLatest(of: deviceID, incoming.first { offers.offers[$0.id]?.peerDeviceID == deviceID }?.id)
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
        if let recent = await recentDocumentPayload(activityID, to: deviceID) { return recent }
        do {
            guard case .local(let app, let published)? = try? source(activityID) else {
                return .failure(.handoffFailed("the activity \(activityID) is no longer offered"))
            }
            guard settingsStore.policy.allows(app: app.appID, to: deviceID) else {
                return .failure(.handoffFailed("the activity \(activityID) is not offered to this device"))
            }
            let bytes = try await broker.fetch(.local(app, published))
            let document = await sharedDocuments.describe(bytes, of: app, activityID: activityID, to: deviceID)
            return .success(FetchedPayload(bytes: bytes, document))
        } catch {
            return .failure(ServiceError.userActivityError(from: error))
        }
    }

    func peer(_ device: PeerDevice, continued activityID: String) {
        guard let (app, published) = registry.published(activityID) else { return }
        network.log(.info, from: device.id,
                    "\(network.deviceName(device.id)) continued \(published.summary.activityType) of \(app.appID)")
        offerNotifications.handedOver(published.summary, to: device.id)
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
            guard settingsStore.policy.allows(device: deviceID) else {
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
        offerNotifications.refresh(device: device.id)
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
