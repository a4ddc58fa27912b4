/// What another app (or this device) put on the clipboard, as the compositor describes it to
/// this device: the MIME types offered, each readable through
/// ``WaylandDataControlConnection/receive(_:as:)`` until the next selection replaces it.
@MainActor
final class WaylandDataOffer {
    /// The most types kept of one offer.
    static let typeLimit = 1024

    /// The types offered, in the app's order, each once.
    private(set) var types: [String] = []
    /// The offer's proxy, until the offer is destroyed.
    private(set) var proxy: OpaquePointer?

    init(proxy: OpaquePointer) {
        self.proxy = proxy
    }

    func add(_ type: String) {
        guard types.count < Self.typeLimit, !types.contains(type) else { return }
        types.append(type)
    }

    /// The compositor was told the offer is no longer wanted.
    func destroyed() {
        proxy = nil
    }
}
