import Foundation

/// A notification server on a session's bus (BatonTestApp's, which honours `replaces_id`),
/// and what it was asked: one record per `Notify` (`id`, `replaces`, `summary`, `body`,
/// `actions`, `appIcon`, …) or `CloseNotification` (`closed`).
public final class NotificationLog {
    public let url: URL
    public let server: ChildProcess

    /// Starts the server on `session` and waits until it owns its name. With `invoking`, it
    /// clicks the first of those actions each notification has.
    public init(on session: ServiceSession, invoking actions: [String] = []) throws {
        url = session.root.appendingPathComponent("notifications.jsonl")
        let invoke = actions.isEmpty ? [] : ["--invoke", actions.joined(separator: ",")]
        server = try session.start(ServiceSession.product("BatonTestApp"), ["notification-server", "--log", url.path] + invoke,
                                   name: "notifications")
        guard waitUntil({ self.server.log.contains("notification server ready") }) else {
            throw FixtureError("the notification server did not start: \(server.log)")
        }
    }

    /// The log as written.
    public var text: String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    /// Every record so far.
    public var records: [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The notifications shown (`Notify` calls), oldest first.
    public var shown: [[String: Any]] { records.filter { $0["summary"] != nil } }
}
