import BatonPeer

/// Which feature handles each kind of message: built once from the features registered,
/// refusing a kind claimed twice or one the network keeps.
@MainActor
struct PeerFeatureRoutes {
    /// The kinds ``PeerNetwork`` handles itself: hello, pairing and keepalives, the ones a
    /// device may send before it is paired. A feature hears only paired devices.
    static var networkKinds: Set<PeerMessage.Kind> { PeerMessage.Kind.allowedBeforePairing }

    /// A feature claimed a kind the network or another feature claimed already: a mistake
    /// in the registration (``PeerFeatures``), caught as batond starts.
    struct ClaimedTwice: Error, CustomStringConvertible {
        var kind: PeerMessage.Kind
        var feature: String
        var description: String { "the peer message kind \(kind) is claimed twice, the second time by \(feature)" }
    }

    private var routes: [PeerMessage.Kind: any PeerFeature] = [:]

    /// No routes: every message a feature would handle is dropped.
    init() {}

    /// - Throws: ``ClaimedTwice`` when two features, or a feature and the network, claim one kind.
    init(_ features: [any PeerFeature]) throws {
        for feature in features {
            for kind in feature.messageKinds {
                guard routes[kind] == nil, !Self.networkKinds.contains(kind) else {
                    throw ClaimedTwice(kind: kind, feature: "\(type(of: feature))")
                }
                routes[kind] = feature
            }
        }
    }

    /// The feature that handles `kind`, if one does.
    func feature(for kind: PeerMessage.Kind) -> (any PeerFeature)? { routes[kind] }

    /// Hands `message` to the feature that claims its kind; `false` when none does (a kind
    /// the network keeps, or an unknown one), and the message is dropped.
    func deliver(_ message: PeerMessage, from device: PeerDevice) -> Bool {
        guard let kind = message.kind, let feature = routes[kind] else { return false }
        feature.received(message, from: device)
        return true
    }
}
