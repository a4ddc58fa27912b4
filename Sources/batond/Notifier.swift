import BatonGLib
import Logging

/// Shows offers as desktop notifications (`org.freedesktop.Notifications`) with a
/// "Continue" action, and reports which offer the user chose to continue.
///
/// Without a notification server, offers stay listed over D-Bus only; this is logged once.
@MainActor
final class Notifier {
    private static let name = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"
    static let continueAction = "continue"

    private let connection: BusConnection
    private let logger: Logger
    /// Notification ids by offer id, and back.
    private var notifications: [String: UInt32] = [:]
    private var offers: [UInt32: String] = [:]
    private var warnedUnavailable = false
    /// Called with an offer id when the user picks "Continue" on its notification.
    var onContinue: (String) -> Void = { _ in }
    /// Whether an offer is still listed: a notification that comes back for a withdrawn
    /// offer is closed at once.
    var isListed: (String) -> Bool = { _ in true }

    init(connection: BusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
        connection.subscribe(sender: Self.name, interface: Self.name, member: "ActionInvoked", path: Self.path) {
            [weak self] _, arguments in
            guard arguments.count == 2, case .uint32(let id) = arguments[0], let action = arguments.at(1)?.string
            else { return }
            self?.actionInvoked(id, action)
        }
        connection.subscribe(sender: Self.name, interface: Self.name, member: "NotificationClosed", path: Self.path) {
            [weak self] _, arguments in
            guard let first = arguments.first, case .uint32(let id) = first else { return }
            self?.forget(notification: id)
        }
    }

    /// Shows a notification for an offer.
    func show(offerID: String, title: String, detail: String) {
        let arguments: [BusValue] = [
            .string("Baton"), .uint32(0), .string("document-send"), .string(title), .string(detail),
            .strings(["default", "Continue", Self.continueAction, "Continue"]),
            .dictionary(["category": .string("network"), "resident": .bool(true)]), .int32(-1),
        ]
        Task { @MainActor in
            do {
                let reply = try await connection.call(Self.name, path: Self.path, interface: Self.name,
                                                      method: "Notify", arguments: arguments, timeout: 5)
                guard let first = reply.first, case .uint32(let id) = first else { return }
                guard isListed(offerID) else {
                    _ = try? await connection.call(Self.name, path: Self.path, interface: Self.name,
                                                   method: "CloseNotification", arguments: [.uint32(id)], timeout: 5)
                    return
                }
                notifications[offerID] = id
                offers[id] = offerID
            } catch {
                guard !warnedUnavailable else { return }
                warnedUnavailable = true
                logger.notice("no desktop notifications (\(error)); offers are listed over D-Bus only")
            }
        }
    }

    /// Closes the notification of a withdrawn offer.
    func withdraw(offerID: String) {
        guard let id = notifications.removeValue(forKey: offerID) else { return }
        offers[id] = nil
        Task { @MainActor in
            _ = try? await connection.call(Self.name, path: Self.path, interface: Self.name,
                                           method: "CloseNotification", arguments: [.uint32(id)], timeout: 5)
        }
    }

    private func actionInvoked(_ id: UInt32, _ action: String) {
        guard action == Self.continueAction || action == "default", let offerID = offers[id] else { return }
        forget(notification: id)
        onContinue(offerID)
    }

    private func forget(notification id: UInt32) {
        guard let offerID = offers.removeValue(forKey: id) else { return }
        notifications[offerID] = nil
    }
}
