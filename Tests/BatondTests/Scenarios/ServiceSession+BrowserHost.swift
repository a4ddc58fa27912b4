import Foundation
import ServiceFixtures

/// What the browser tests read from batond through `baton`.
extension ServiceSession {
    /// `current` of `baton status --json`: the current activity, or nil when there is none.
    func currentActivity() throws -> [String: Any]? {
        let result = try baton(["status", "--json"])
        guard result.status == 0 else { throw FixtureError("baton status failed: \(result.errorOutput)") }
        return (result.json as? [String: Any])?["current"] as? [String: Any]
    }

    /// The running browser host's record in `baton apps --json`, or nil when none is registered.
    func runningBrowserHost() throws -> [String: Any]? {
        let apps = try baton(["apps", "--json"]).json as? [[String: Any]] ?? []
        return apps.first { $0["app-id"] as? String == "org.baton.BrowserHost" && $0["running"] as? Bool == true }
    }

    /// Waits until the current activity is a page at `url` titled `title`; the activity, or nil
    /// after `timeout` (with the last one seen in `last`).
    func waitForPage(_ url: String, titled title: String, timeout: TimeInterval = 20,
                     last: inout [String: Any]?) -> [String: Any]? {
        var seen: [String: Any]?
        let found = waitUntil(timeout: timeout) {
            seen = try currentActivity()
            return seen?["webpage-url"] as? String == url && seen?["title"] as? String == title
                && seen?["type"] as? String == "NSUserActivityTypeBrowsingWeb"
        }
        last = seen
        return found ? seen : nil
    }
}
