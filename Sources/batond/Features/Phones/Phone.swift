import Foundation

/// A phone (or tablet) the person paired with a KDE Connect-family service on this desktop
/// (kdeconnectd, GSConnect, Valent), which batond can send a web page to and take links from.
/// batond does not speak to the phone itself: the service it is paired with does.
struct Phone: Equatable, Sendable {
    /// Baton's id for it: the service's short name and its own id, `kdeconnect:ID`.
    let id: String
    let name: String
    /// `phone` or `tablet`.
    let kind: String
    /// Whether the service can reach it now.
    let isReachable: Bool
    /// The service it is paired with, as people know it: `KDE Connect`, `GSConnect`, `Valent`.
    let via: String
}

/// What a ``PhoneBridge`` tells its owner.
@MainActor
protocol PhoneBridgeDelegate: AnyObject {
    /// The bridge's phones changed (paired, renamed, reachable or not).
    func phonesChanged()
    /// `phone` shared the link `url` with this desktop.
    func phone(_ phone: Phone, shared url: URL)
}

/// One KDE Connect-family service on the session bus, followed while it runs: its paired
/// phones, and sharing a link with one.
@MainActor
protocol PhoneBridge: AnyObject {
    /// The service's name for people.
    var serviceName: String { get }
    /// The paired phones, as last read.
    var phones: [Phone] { get }
    var delegate: (any PhoneBridgeDelegate)? { get set }
    /// Starts following the service (never starting it).
    func start()
    /// Sends `url` to `phone` through the service.
    ///
    /// - Throws: ``PhoneError`` saying why it could not be sent.
    func share(_ url: URL, with phone: Phone) async throws
}

/// Why a link could not be sent to a phone.
struct PhoneError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

