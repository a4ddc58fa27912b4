import BatonGLib
import CGLib
import BatonPeer

/// Offers between paired devices: each device pushes the list of what it offers the other
/// (each list replaces the one before) when they link, when they pair, and shortly after its
/// activities change.
@MainActor
final class OfferFeature: PeerFeature {
    /// How long offers are gathered before they are pushed (changes come in bursts).
    static let debounce = 0.01

    unowned let network: PeerNetwork
    /// What each device was last sent, by device id.
    private var sent: [String: [PeerOffer]] = [:]
    private var timer: guint = 0

    init(network: PeerNetwork) {
        self.network = network
    }

    let messageKinds: Set<PeerMessage.Kind> = [.offers]

    func received(_ message: PeerMessage, from device: PeerDevice) {
        guard case .offers(let offers) = message else { return }
        network.delegate?.peer(device, offered: offers)
    }

    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange) {
        switch change {
        case .linked, .paired:
            guard network.isPaired(device.id), let link = device.link else { return }
            send(to: device.id, over: link)
        case .unpaired:
            sent[device.id] = nil
        case .unlinked, .renamed:
            break
        }
    }

    /// This device's activities changed: paired peers get the new offers shortly.
    func changed() {
        guard timer == 0 else { return }
        timer = GLibSources.once(after: Self.debounce) { [weak self] in
            guard let self else { return }
            self.timer = 0
            for device in self.network.devices.values where self.network.isPaired(device.id) {
                guard let link = device.link else { continue }
                let offers = self.network.delegate?.offers(for: device.id) ?? []
                guard offers != self.sent[device.id] else { continue }
                self.sent[device.id] = offers
                link.send(.offers(offers))
            }
        }
    }

    /// Sends the device what this device offers it now, over `link`.
    private func send(to deviceID: String, over link: PeerLink) {
        let offers = network.delegate?.offers(for: deviceID) ?? []
        sent[deviceID] = offers
        link.send(.offers(offers))
    }
}
