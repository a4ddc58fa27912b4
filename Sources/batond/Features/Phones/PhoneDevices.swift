import Foundation

/// The phones of every KDE Connect-family service running here (``PhoneBridge``), as one list:
/// what `baton devices` shows beside Baton's own devices, and where `SendToDevice` sends.
@MainActor
final class PhoneDevices: PhoneBridgeDelegate {
    private let bridges: [any PhoneBridge]
    /// The owner, told when the list changes and when a phone shares a link.
    weak var delegate: (any PhoneBridgeDelegate)?

    init(bridges: [any PhoneBridge]) {
        self.bridges = bridges
        for bridge in bridges { bridge.delegate = self }
    }

    func start() {
        for bridge in bridges { bridge.start() }
    }

    /// Every paired phone, by service then id.
    var all: [Phone] { bridges.flatMap(\.phones) }

    /// The phone `query` names: its id, its name (without case), or the start of its id.
    func phone(_ query: String) -> Phone? {
        let phones = all
        if let phone = phones.first(where: { $0.id == query }) { return phone }
        let named = phones.filter { $0.name.compare(query, options: .caseInsensitive) == .orderedSame }
        if named.count == 1 { return named[0] }
        let started = phones.filter { !query.isEmpty && $0.id.hasPrefix(query) }
        return started.count == 1 ? started[0] : nil
    }

    /// Sends `url` to `phone` through its service.
    ///
    /// - Throws: ``PhoneError``.
    func share(_ url: URL, with phone: Phone) async throws {
        guard let bridge = bridges.first(where: { $0.phones.contains(phone) }) else {
            throw PhoneError("\(phone.name) is no longer paired")
        }
        try await bridge.share(url, with: phone)
    }

    func phonesChanged() { delegate?.phonesChanged() }

    func phone(_ phone: Phone, shared url: URL) { delegate?.phone(phone, shared: url) }
}
