import BatonPeer

/// What the origin tells a device fetching an activity of the file it names: the file
/// described (so the device may fetch it), or why it is withheld.
enum DocumentDescription: Hashable, Sendable {
    case described(PeerDocument)
    case withheld(PeerDocumentWithheld)

    /// The document described, if it was.
    var document: PeerDocument? {
        if case .described(let document) = self { document } else { nil }
    }

    /// Why the document was withheld, if it was.
    var withheld: PeerDocumentWithheld? {
        if case .withheld(let reason) = self { reason } else { nil }
    }
}
