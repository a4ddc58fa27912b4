import BatonPeer

/// One feature of the peer protocol, plugged into ``PeerNetwork``: the message kinds it
/// handles, the capability it announces, and its own state per device.
///
/// The network keeps links, admission, dialing, hello and pairing; every other message from a
/// paired device goes to the feature that claims its kind (``PeerFeatureRoutes``), and every
/// feature hears what happens to a device (``PeerDeviceChange``). Features are registered in
/// one place, ``PeerFeatures``. `Sources/batond/Features/README.md` has the recipe.
@MainActor
protocol PeerFeature: AnyObject {
    /// The kinds of message it handles: each kind is claimed by one feature at most, and none
    /// of the network's own (``PeerFeatureRoutes/networkKinds``).
    var messageKinds: Set<PeerMessage.Kind> { get }
    /// What it announces in the hello (``PeerCapability``), if anything: the other device
    /// sends its messages only when announced.
    var capability: String? { get }
    /// A message of one of its kinds from a paired device whose current link carried it.
    func received(_ message: PeerMessage, from device: PeerDevice)
    /// Something happened to `device`: a feature fails the calls waiting on a lost link, and
    /// drops what it keeps for a device no longer paired.
    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange)
    /// Whether it still keeps something for `deviceID` (a call waiting, a stream open): the
    /// network keeps the device's object until no feature does (``PeerNetwork/discardIfIdle(_:)``).
    func holdsState(for deviceID: String) -> Bool
}

/// What happened to a device, as every ``PeerFeature`` hears it.
enum PeerDeviceChange: Equatable, Sendable {
    /// Its hello arrived on a new link, which ``PeerDevice/link`` is now.
    case linked
    /// Its link closed, or another replaced it: what waited on the link fails with `reason`.
    case unlinked(reason: String)
    /// It was paired just now, over its current link.
    case paired
    /// It is no longer paired: what waited fails with `reason`, and what was kept for it goes.
    case unpaired(reason: String)
    /// It gave itself a new name (``PeerDevice/name``).
    case renamed
}

/// The defaults of a feature that needs none of these.
extension PeerFeature {
    var capability: String? { nil }
    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange) {}
    func holdsState(for deviceID: String) -> Bool { false }
}
