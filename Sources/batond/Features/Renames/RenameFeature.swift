import BatonBus
import BatonGLib
import BatonPeer

/// Renames: a paired device whose person renames it says its new name to its linked paired
/// peers (`renamed`), which show and pin it as they would a hello's name
/// (``DeviceNames/takenName(_:by:)``); devices not linked learn it from the next hello.
@MainActor
final class RenameFeature: PeerFeature {
    unowned let network: PeerNetwork
    /// Renames a paired device may send: each is saved and signalled, so a flood of them is
    /// ignored past this.
    private var limit = RateLimit(count: 10, per: 60)

    init(network: PeerNetwork) {
        self.network = network
    }

    let messageKinds: Set<PeerMessage.Kind> = [.renamed]
    var capability: String? { PeerCapability.renames }

    /// A paired device's person renamed it: it is shown and remembered by its new name, or
    /// by that name and its short id when the name poses as another device's.
    func received(_ message: PeerMessage, from device: PeerDevice) {
        guard case .renamed(let claimed) = message else { return }
        let name = DeviceNameSkeleton.cleaned(claimed)
        guard device.name != name else { return }
        guard limit.allow(device.id, now: MonotonicClock.now) else {
            return network.log(.notice, from: device.id,
                               "\(network.displayName(device.id)) renamed itself too often; its name “\(name)” waits for its next hello")
        }
        let before = network.displayName(device.id)
        device.name = name
        network.takeName(of: device, address: device.address)
        network.log(.info, from: device.id, "\(before) is now named “\(network.deviceName(device.id))”")
        network.tellFeatures(device, .renamed)
        network.delegate?.peerRenamed(device)
        network.delegate?.devicesChanged()
    }

    /// Tells the linked paired devices that can hear it this device's new name.
    func announce(_ name: String) {
        for device in network.devices.values where network.isPaired(device.id) {
            network.send(.renamed(name: name), to: device.id, needing: PeerCapability.renames)
        }
    }
}
