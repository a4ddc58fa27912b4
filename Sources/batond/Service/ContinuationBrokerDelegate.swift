import BatonGLib
import BatonPeer

/// What ``ContinuationBroker`` asks of its owner for activities of other devices: it fetches
/// and tells nothing over the network itself.
@MainActor
protocol ContinuationBrokerDelegate: AnyObject {
    /// The payload of a paired device's offer, fetched from that device now, with the
    /// document it names as that device describes it.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` when the device cannot be reached, does not
    ///   answer in time, or answers with its own error.
    func payload(of offer: Offer, from deviceID: String) async throws -> FetchedPayload
    /// This device continued a paired device's offer: tell that device.
    func continued(_ offer: Offer, from deviceID: String)
    /// Opens a continuation stream to the app a paired device's offer came from, relaying
    /// `end` (one end of a local socket pair) over the link to that device.
    ///
    /// - Throws: ``ServiceError/activity(_:)``: 4609 when the device or its app cannot take
    ///   it, 4610 when it does not answer in time.
    func openStream(_ end: BusFileDescriptor, to offer: Offer, from deviceID: String) async throws
    /// Opens a stream of the bytes of the document the device described with its offer's
    /// payload, relaying `end` as ``openStream(_:to:from:)`` does.
    func openDocumentStream(_ end: BusFileDescriptor, to offer: Offer, from deviceID: String) async throws
}
