import BatonGLib
import Logging

/// Shows desktop notifications (`org.freedesktop.Notifications`) with at most one action, each
/// under a key of batond's (`offer:ID`, `pair:DEVICE`), and reports the actions the user picks.
///
/// Without a notification server, everything stays available over D-Bus and the CLI; this
/// is logged once.
@MainActor
final class Notifier {
    private static let name = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"

    private let connection: BusConnection
    private let logger: Logger
    /// Notification ids by key, and back, with the action each offers.
    private var notifications: [String: UInt32] = [:]
    private var shown: [UInt32: (key: String, action: String?)] = [:]
    private var warnedUnavailable = false
    /// Called with the key and action id when the user picks a notification's action.
    var onAction: (_ key: String, _ action: String) -> Void = { _, _ in }
    /// Whether a key still stands: a notification that comes back for a withdrawn key is
    /// closed at once.
    var isCurrent: (String) -> Bool = { _ in true }

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

    /// Shows a notification whose action (and default click) reports `action.id`; one without
    /// an action reports nothing. `title` and `detail` are plain text: the body is escaped,
    /// since servers may read it as markup, and the title loses what could form markup.
    func show(key: String, title: String, detail: String, action: (id: String, label: String)?) {
        let actions = action.map { ["default", $0.label, $0.id, $0.label] } ?? []
        let arguments: [BusValue] = [
            .string("Baton"), .uint32(notifications[key] ?? 0), .string("document-send"),
            .string(Self.withoutMarkup(title)), .string(Self.escapingMarkup(detail)), .strings(actions),
            .dictionary(["category": .string("network"), "resident": .bool(true)]), .int32(-1),
        ]
        Task { @MainActor in
            do {
                let reply = try await connection.call(Self.name, path: Self.path, interface: Self.name,
                                                      method: "Notify", arguments: arguments, timeout: 5)
                guard let first = reply.first, case .uint32(let id) = first else { return }
                guard isCurrent(key) else { return close(id) }
                notifications[key] = id
                shown[id] = (key, action?.id)
            } catch {
                guard !warnedUnavailable else { return }
                warnedUnavailable = true
                logger.notice("no desktop notifications (\(error)); offers and pairing requests are listed over D-Bus only")
            }
        }
    }

    /// `text` with `&`, `<` and `>` escaped, as the notification spec's body markup needs.
    static func escapingMarkup(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// `text` for a notification's summary, which the spec makes plain text but some servers
    /// read as markup: `<`, `>` and `&` become look-alikes that form no markup either way.
    static func withoutMarkup(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "＆").replacingOccurrences(of: "<", with: "‹")
            .replacingOccurrences(of: ">", with: "›")
    }

    /// Closes the notification shown under `key`.
    func withdraw(key: String) {
        guard let id = notifications.removeValue(forKey: key) else { return }
        shown[id] = nil
        close(id)
    }

    private func close(_ id: UInt32) {
        Task { @MainActor in
            _ = try? await connection.call(Self.name, path: Self.path, interface: Self.name,
                                           method: "CloseNotification", arguments: [.uint32(id)], timeout: 5)
        }
    }

    private func actionInvoked(_ id: UInt32, _ action: String) {
        guard let entry = shown[id], let own = entry.action, action == own || action == "default" else { return }
        forget(notification: id)
        onAction(entry.key, own)
    }

    private func forget(notification id: UInt32) {
        guard let entry = shown.removeValue(forKey: id) else { return }
        notifications[entry.key] = nil
    }
}
