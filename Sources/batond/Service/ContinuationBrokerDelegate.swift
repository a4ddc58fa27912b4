import BatonGLib

/// What ``ContinuationBroker`` asks of its owner for activities of other devices: it fetches
/// and tells nothing over the network itself.
@MainActor
protocol ContinuationBrokerDelegate: AnyObject {
    /// The payload of a paired device's offer, fetched from that device now.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` when the device cannot be reached, does not
    ///   answer in time, or answers with its own error.
    func payload(of offer: Offer, from deviceID: String) async throws -> [UInt8]
    /// This device continued a paired device's offer: tell that device.
    func continued(_ offer: Offer, from deviceID: String)
    /// Opens a continuation stream to the app a paired device's offer came from, relaying
    /// `end` (one end of a local socket pair) over the link to that device.
    ///
    /// - Throws: ``ServiceError/activity(_:)``: 4609 when the device or its app cannot take
    ///   it, 4610 when it does not answer in time.
    func openStream(_ end: BusFileDescriptor, to offer: Offer, from deviceID: String) async throws
}
