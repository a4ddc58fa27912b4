import Baton
import BatonBus
import Foundation

/// The web page in front, as the browser's current activity: an
/// `NSUserActivityTypeBrowsingWeb` activity with the page's title and URL and an empty
/// `userInfo`, as Safari's.
struct PageActivity: Equatable, Sendable {
    /// The id batond knows the activity by (`PublishCurrent`, `Save`): the same while the
    /// page keeps its URL, a new one for another URL.
    let id: String
    /// What batond is told (`PublishCurrent`): the title cleaned and cut to the service's
    /// limits (`ActivitySummary/cleaned`), without spaces around it; none when that leaves
    /// nothing.
    let summary: ActivitySummary

    /// The page at `url` titled `title`; it keeps `previous`'s id when the URL is the same
    /// (the title changed, or the person came back to the tab).
    init(url: URL, title: String?, following previous: PageActivity?) {
        var summary = ActivitySummary(activityType: UserActivity.browsingWebType, title: title, webpageURL: url).cleaned
        summary.title = summary.title.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        self.summary = summary
        if let previous, previous.summary.webpageURL == summary.webpageURL {
            id = previous.id
        } else {
            id = UUID().uuidString
        }
    }

    /// The activity as `Save` returns it.
    var payload: UserActivityPayload {
        UserActivityPayload(activityType: summary.activityType, title: summary.title, userInfo: [:],
                            webpageURL: summary.webpageURL)
    }
}
