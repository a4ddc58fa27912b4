import Baton
import BatonGLib
import BatonPeer

/// What ``PeerNetwork`` reports to the service that owns it, and the one thing it asks of it:
/// the service composes the network and answers here; the network never calls the service's
/// other parts.
@MainActor
protocol PeerNetworkDelegate: AnyObject {
    /// What this device offers the paired device `deviceID`.
    func offers(for deviceID: String) -> [PeerOffer]
    /// A paired device's offers now (each list replaces the device's earlier one).
    func peer(_ device: PeerDevice, offered offers: [PeerOffer])
    /// A device's offers are void: its link closed or it is no longer paired.
    func peerGone(_ deviceID: String)
    /// The paired device `deviceID` asks for the payload of this device's activity `activityID`.
    func payloadRequested(for activityID: String, by deviceID: String) async -> Result<FetchedPayload, UserActivityError>
    /// A paired device continued this device's activity `activityID`.
    func peer(_ device: PeerDevice, continued activityID: String)
    /// A device asks to pair: show the code this device shows.
    func pairingRequested(by device: PeerDevice, code: String)
    /// A pairing ended (paired, cancelled or timed out).
    func pairingEnded(with deviceID: String)
    /// Devices appeared, left, paired or unpaired.
    func devicesChanged()
    /// A paired device's person renamed it (``PeerDevice/name`` is the new name).
    func peerRenamed(_ device: PeerDevice)
    /// The paired device `deviceID`, continuing this device's activity `activityID`, opens a
    /// continuation stream: give the origin app its end and return the other, to relay.
    func streamRequested(for activityID: String, by deviceID: String) async -> Result<BusFileDescriptor, UserActivityError>
    /// Whether copies go to and come from the paired device `deviceID` now (``ClipboardFeature``).
    func sharesClipboard(with deviceID: String) -> Bool
}
