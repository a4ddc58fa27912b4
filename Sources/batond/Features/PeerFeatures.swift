/// The features batond runs, registered with its ``PeerNetwork``: the one place a new
/// ``PeerFeature`` is added (a property, made in `init`, listed in ``all``).
@MainActor
final class PeerFeatures {
    /// Whether a paired device can reach this one back (`baton doctor`).
    let reachBack: ReachBackFeature
    /// The offers exchanged with paired devices.
    let offers: OfferFeature
    /// Activities' payloads fetched from and for paired devices.
    let fetch: FetchFeature
    /// Continuation streams relayed over the links.
    let streams: StreamFeature
    /// Paired devices' new names.
    let renames: RenameFeature
    /// Copies announced to and pasted from paired devices.
    let clipboard: ClipboardFeature

    init(network: PeerNetwork) {
        reachBack = ReachBackFeature(network: network)
        offers = OfferFeature(network: network)
        fetch = FetchFeature(network: network)
        streams = StreamFeature(network: network, fetch: fetch)
        renames = RenameFeature(network: network)
        clipboard = ClipboardFeature(network: network)
    }

    /// Every feature, in the order each hears of a device's changes.
    var all: [any PeerFeature] { [reachBack, offers, fetch, streams, renames, clipboard] }
}
