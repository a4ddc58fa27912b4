import Baton
import BatonPeer
import Foundation

/// One remote device, as this one knows it: its link, what its hello said and the pairing
/// under way. ``PeerNetwork`` keeps one per device it is linked with, is pairing with, has
/// seen lately, finds announced with a name through DNS-SD or is paired with (whose pin is in
/// ``PairedDevices``), and drops it once it is none of these and no feature keeps anything for
/// it (``PeerFeature/holdsState(for:)``).
@MainActor
final class PeerDevice {
    /// The device id: the hash of its certificate's public key.
    let id: String
    /// The introduced link (its hello received), while it is open or closing.
    var link: PeerLink?
    /// The name its last hello gave.
    var name: String?
    /// Where it listens (`HOST:PORT`), from its last hello.
    var address: String?
    /// The protocol version and capabilities its hello announced on the current link.
    var announced: (version: UInt32, capabilities: Set<String>)?
    /// When its link closed, for a device that is not paired: it stays listed for
    /// ``PeerNetwork/seenDeviceLifetime`` and is dialed again to pair.
    var seenAt: Date?
    /// What its DNS-SD record says while it is announced with a name (``DiscoveryRecord``):
    /// the device is listed from it without a link.
    var discovered: (name: String, address: String)?
    /// The pairing under way with it.
    var pairing: PairingSession?
    /// Calls waiting for a link with it (to pair with it while it is not linked), by a token
    /// of each call.
    var linkWaiters: [UUID: @MainActor (Bool) -> Void] = [:]

    init(id: String) {
        self.id = id
    }

    /// The name it gives itself now: its hello's (or rename's) while it is linked, else its
    /// DNS-SD record's while it is announced with one, else its last hello's.
    var claimedName: String? {
        link != nil ? name ?? discovered?.name : discovered?.name ?? name
    }

    /// Whether its link is open.
    var isLinked: Bool { link?.isOpen ?? false }

    /// Whether it announced `capability` in its hello on the current link.
    func supports(_ capability: String) -> Bool {
        announced?.capabilities.contains(capability) ?? false
    }

    /// Whether the network keeps nothing for it but, when it is paired, its pin.
    var isIdle: Bool {
        link == nil && seenAt == nil && discovered == nil && pairing == nil && linkWaiters.isEmpty
    }

    /// Answers the calls waiting for its link.
    func finishLinkWaiters(linked: Bool) {
        let waiting = linkWaiters
        linkWaiters = [:]
        for waiter in waiting.values { waiter(linked) }
    }
}
