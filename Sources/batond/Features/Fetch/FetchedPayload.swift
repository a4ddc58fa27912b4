import BatonPeer

/// An activity a paired device sent for a continuation: its encoded payload, and the file it
/// names as that device describes it, if it does.
struct FetchedPayload: Sendable {
    var bytes: [UInt8]
    var document: PeerDocument?
}
