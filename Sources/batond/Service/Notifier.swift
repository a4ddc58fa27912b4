import BatonBus
import BatonGLib
import Logging

/// Shows desktop notifications (`org.freedesktop.Notifications`) with at most one action, each
/// under a key of batond's (`offer:ID`, `pair:DEVICE`), and reports the actions the user picks.
///
/// Each notification names batond's own desktop entry (the `desktop-entry` hint) and icon, so
/// the shell shows it as Baton's and lets the user set how Baton may notify.
///
/// Without a notification server, everything stays available over D-Bus and the CLI; this
/// is logged once.
@MainActor
final class Notifier {
    private static let name = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"
    /// batond's desktop entry, `org.baton.Daemon.desktop` (installed by
    /// `scripts/install-service.sh`), named after its bus name: the `desktop-entry` hint.
    static let desktopEntry = BatonService.busName
    /// batond's icon in the hicolor theme, installed beside its desktop entry: the `app_icon`.
    static let iconName = BatonService.busName
    /// The application name notifications carry.
    static let applicationName = "Baton"

    private let connection: BusConnection
    private let logger: Logger
    /// Notification ids by key, and back, with the action each offers.
    private var notifications: [String: UInt32] = [:]
    private var shown: [UInt32: (key: String, action: String?, others: [String])] = [:]
    private var warnedUnavailable = false
    /// A notification to show.
    private struct Request {
        let title: String
        let detail: String
        let action: (id: String, label: String)?
        let icon: String?
        /// Actions beside the main one, which the default click does not invoke.
        let others: [(id: String, label: String)]
    }
    /// Keys whose `Notify` call awaits its reply, and the request to send after it.
    private var sending = Set<String>()
    private var waiting: [String: Request] = [:]
    /// The activation token the server sent for a notification (`ActivationToken`, spec 1.2),
    /// just before the action it goes with.
    private var activationTokens: [UInt32: String] = [:]
    /// Called with the key and action id when the user picks a notification's action.
    ///
    /// `activationToken` is the one the server sent with the click (`ActivationToken`), which
    /// lets the window that answers it come to the front.
    var onAction: (_ key: String, _ action: String, _ activationToken: String?) -> Void = { _, _, _ in }
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
        connection.subscribe(sender: Self.name, interface: Self.name, member: "ActivationToken", path: Self.path) {
            [weak self] _, arguments in
            guard arguments.count == 2, case .uint32(let id) = arguments[0], let token = arguments.at(1)?.string,
                  BatonService.isAcceptableActivationToken(token), self?.shown[id] != nil
            else { return }
            self?.activationTokens[id] = token
            self?.logger.debug("notification \(id) comes with an activation token")
        }
        connection.subscribe(sender: Self.name, interface: Self.name, member: "NotificationClosed", path: Self.path) {
            [weak self] _, arguments in
            guard let first = arguments.first, case .uint32(let id) = first else { return }
            self?.forget(notification: id)
        }
    }

    /// Shows a notification whose action (and default click) reports `action.id`; one without
    /// an action reports nothing. `title` and `detail` are plain text: the body is escaped,
    /// since servers may read it as markup, and the title loses what could form markup. A
    /// notification shown under a key already shown replaces it (`replaces_id`). `icon` is
    /// its `app_icon`, batond's own by default. `others` are more buttons, reported by their ids.
    func show(key: String, title: String, detail: String, action: (id: String, label: String)?,
              icon: String? = nil, others: [(id: String, label: String)] = []) {
        let request = Request(title: title, detail: detail, action: action, icon: icon, others: others)
        // One call per key at a time: a second one sent before the first's reply would carry
        // no replaces_id and stack a second notification. The latest waits its turn.
        guard !sending.contains(key) else {
            waiting[key] = request
            return
        }
        send(request, key: key)
    }

    private func send(_ request: Request, key: String) {
        sending.insert(key)
        let actions = (request.action.map { ["default", $0.label, $0.id, $0.label] } ?? [])
            + request.others.flatMap { [$0.id, $0.label] }
        let hints: [String: BusValue] = [
            "category": .string("network"), "resident": .bool(true), "desktop-entry": .string(Self.desktopEntry),
        ]
        let arguments: [BusValue] = [
            .string(Self.applicationName), .uint32(notifications[key] ?? 0), .string(request.icon ?? Self.iconName),
            .string(Self.withoutMarkup(request.title)), .string(Self.escapingMarkup(request.detail)), .strings(actions),
            .dictionary(hints), .int32(-1),
        ]
        Task { @MainActor in
            defer {
                sending.remove(key)
                if let next = waiting.removeValue(forKey: key) { send(next, key: key) }
            }
            do {
                let reply = try await connection.call(Self.name, path: Self.path, interface: Self.name,
                                                      method: "Notify", arguments: arguments, timeout: 5)
                guard let first = reply.first, case .uint32(let id) = first else { return }
                guard isCurrent(key) else { return close(id) }
                notifications[key] = id
                shown[id] = (key, request.action?.id, request.others.map(\.id))
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
        waiting[key] = nil
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
        guard let entry = shown[id] else { return }
        let chosen: String
        if let own = entry.action, action == own || action == "default" {
            chosen = own
        } else if entry.others.contains(action) {
            chosen = action
        } else {
            return
        }
        let token = activationTokens.removeValue(forKey: id)
        forget(notification: id)
        onAction(entry.key, chosen, token)
    }

    private func forget(notification id: UInt32) {
        activationTokens[id] = nil
        guard let entry = shown.removeValue(forKey: id) else { return }
        notifications[entry.key] = nil
    }
}
