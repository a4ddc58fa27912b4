import Baton
import BatonGLib
import Foundation

/// What an app tells batond about its current activity: never the `userInfo`, which stays
/// in the app until someone continues the activity.
public struct ActivitySummary: Hashable, Sendable {
    public var activityType: String
    public var title: String?
    public var isEligibleForHandoff: Bool
    public var webpageURL: URL?
    public var expirationDate: Date?

    public init(activityType: String, title: String? = nil, isEligibleForHandoff: Bool = true,
                webpageURL: URL? = nil, expirationDate: Date? = nil) {
        self.activityType = activityType
        self.title = title
        self.isEligibleForHandoff = isEligibleForHandoff
        self.webpageURL = webpageURL
        self.expirationDate = expirationDate
    }

    /// The summary of a payload.
    public init(_ payload: UserActivityPayload) {
        self.init(activityType: payload.activityType, title: payload.title,
                  isEligibleForHandoff: payload.isEligibleForHandoff, webpageURL: payload.webpageURL,
                  expirationDate: payload.expirationDate)
    }

    /// The summary of an activity.
    @MainActor
    public init(_ activity: UserActivity) {
        self.init(activityType: activity.activityType, title: activity.title,
                  isEligibleForHandoff: activity.isEligibleForHandoff, webpageURL: activity.webpageURL,
                  expirationDate: activity.expirationDate)
    }

    /// The summary as an app publishes it: its title cleaned (``UnsafeCharacters/cleaned(_:)``)
    /// and cut to ``UserActivityPayload/maximumFieldLength`` bytes between characters, so
    /// that batond never refuses it for the title (``checkTitle(_:)``).
    public var cleaned: ActivitySummary {
        var summary = self
        summary.title = title.map { Self.prefix(of: UnsafeCharacters.cleaned($0), bytes: UserActivityPayload.maximumFieldLength) }
        return summary
    }

    /// The longest run of whole characters from the start of `text` that fits in `bytes` of UTF-8.
    private static func prefix(of text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var count = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            count += text[index..<next].utf8.count
            guard count <= bytes else { break }
            end = next
        }
        return String(text[..<end])
    }

    /// Whether the expiration date has passed.
    public func isExpired(now: Date = Date()) -> Bool {
        expirationDate.map { $0 <= now } ?? false
    }

    /// The summary as the `a{sv}` record of `PublishCurrent`.
    public var record: [String: BusValue] {
        var record: [String: BusValue] = [
            "type": .string(activityType), "eligible": .bool(isEligibleForHandoff),
        ]
        if let title { record["title"] = .string(title) }
        if let webpageURL { record["webpage-url"] = .string(webpageURL.absoluteString) }
        if let expirationDate { record["expiration"] = .double(expirationDate.timeIntervalSince1970) }
        return record
    }

    /// Reads a `PublishCurrent` record, checking every field.
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` naming the bad field.
    public init(record: [String: BusValue]) throws {
        guard let type = record["type"]?.string else {
            throw ServiceError.invalidArguments("the summary has no activity type (\"type\", a string)")
        }
        try Self.checkActivityType(type)
        activityType = type
        if let value = record["title"] {
            guard let title = value.string else { throw ServiceError.invalidArguments("\"title\" must be a string") }
            try Self.checkTitle(title)
            self.title = title
        }
        if let value = record["eligible"] {
            guard let eligible = value.bool else { throw ServiceError.invalidArguments("\"eligible\" must be a boolean") }
            isEligibleForHandoff = eligible
        } else {
            isEligibleForHandoff = true
        }
        if let value = record["webpage-url"] {
            guard let text = value.string, text.utf8.count <= UserActivityPayload.maximumFieldLength,
                  let url = URL(string: text), url.absoluteString.utf8.count <= UserActivityPayload.maximumFieldLength,
                  UserActivityPayload.isWebpageURL(url) else {
                throw ServiceError.invalidArguments("\"webpage-url\" must be an absolute http or https URL of at most 4 KiB")
            }
            webpageURL = url
        }
        if let value = record["expiration"] {
            guard let seconds = value.number, seconds.isFinite else {
                throw ServiceError.invalidArguments("\"expiration\" must be a finite number of seconds since 1970")
            }
            expirationDate = Date(timeIntervalSince1970: seconds)
        }
    }

    /// Throws unless `type` is a non-empty activity type of at most 4 KiB without
    /// ``UnsafeCharacters``.
    public static func checkActivityType(_ type: String) throws {
        guard !type.isEmpty, type.utf8.count <= UserActivityPayload.maximumFieldLength,
              !UnsafeCharacters.occur(in: type)
        else {
            throw ServiceError.invalidArguments("invalid activity type \"\(Excerpt.of(type))\"")
        }
    }

    /// Throws unless `title` is at most 4 KiB without ``UnsafeCharacters`` (control
    /// characters, bidirectional controls, line and paragraph separators).
    public static func checkTitle(_ title: String) throws {
        guard title.utf8.count <= UserActivityPayload.maximumFieldLength else {
            throw ServiceError.invalidArguments("\"title\" must be a string of at most 4 KiB")
        }
        guard !UnsafeCharacters.occur(in: title) else {
            throw ServiceError.invalidArguments(
                "\"title\" must not hold control characters, bidirectional controls or line separators")
        }
    }
}
