import BatonPeer

/// An activity a paired device sent for a continuation: its encoded payload, and the file it
/// names as that device describes it, if it does, or why that device withholds the file.
struct FetchedPayload: Sendable {
    var bytes: [UInt8]
    var document: PeerDocument?
    /// Why the device did not describe the file the activity names (a device of an earlier
    /// build does not say).
    var withheld: PeerDocumentWithheld?

    init(bytes: [UInt8], document: PeerDocument? = nil, withheld: PeerDocumentWithheld? = nil) {
        self.bytes = bytes
        self.document = document
        self.withheld = withheld
    }

    /// The payload with what the origin's ``SharedDocuments`` said of its document, if the
    /// activity names one.
    init(bytes: [UInt8], _ description: DocumentDescription?) {
        switch description {
        case .described(let document)?: self.init(bytes: bytes, document: document)
        case .withheld(let reason)?: self.init(bytes: bytes, withheld: reason)
        case nil: self.init(bytes: bytes)
        }
    }
}
