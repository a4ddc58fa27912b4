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

    /// The summary as an app publishes it, within `ActivityLimits` so that batond never
    /// refuses it for anything but its type (which `UserActivity` never makes current when
    /// it is invalid): its title cleaned (``UnsafeCharacters/cleaned(_:)``) and cut to
    /// `ActivityLimits/maximumTitleLength` bytes between characters, a webpage URL batond
    /// would refuse left out, and an infinite expiration date made finite or nil
    /// (`ActivityLimits/fittingExpirationDate(_:)`).
    public var cleaned: ActivitySummary {
        var summary = self
        summary.title = title.map { ActivityLimits.prefix(of: UnsafeCharacters.cleaned($0), bytes: ActivityLimits.maximumTitleLength) }
        summary.webpageURL = webpageURL.flatMap { ActivityLimits.webpageURL(fromText: $0.absoluteString) }
        summary.expirationDate = expirationDate.flatMap(ActivityLimits.fittingExpirationDate)
        return summary
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
            guard let text = value.string, let url = ActivityLimits.webpageURL(fromText: text) else {
                let limit = ActivityLimits.maximumWebpageURLLength
                let length = value.string.flatMap { $0.utf8.count > limit ? " (it is \($0.utf8.count) bytes)" : nil } ?? ""
                throw ServiceError.invalidArguments("\"webpage-url\" must be an absolute http or https URL of at most "
                    + "\(Self.size(limit))\(length)")
            }
            webpageURL = url
        }
        if let value = record["expiration"] {
            guard let seconds = value.number, ActivityLimits.isValidExpirationDate(Date(timeIntervalSince1970: seconds)) else {
                throw ServiceError.invalidArguments("\"expiration\" must be a finite number of seconds since 1970")
            }
            expirationDate = Date(timeIntervalSince1970: seconds)
        }
    }

    /// Throws unless `type` is a non-empty activity type of at most
    /// `ActivityLimits/maximumActivityTypeLength` bytes without ``UnsafeCharacters``
    /// (`ActivityLimits/isValidActivityType(_:)`).
    public static func checkActivityType(_ type: String) throws {
        guard ActivityLimits.isValidActivityType(type) else {
            let length = type.utf8.count > ActivityLimits.maximumActivityTypeLength
                ? " (\(type.utf8.count) bytes, over the limit of \(Self.size(ActivityLimits.maximumActivityTypeLength)))" : ""
            throw ServiceError.invalidArguments("invalid activity type \"\(Excerpt.of(type))\"\(length)")
        }
    }

    /// Throws unless `title` is at most `ActivityLimits/maximumTitleLength` bytes without
    /// ``UnsafeCharacters`` (control characters, bidirectional controls, line and paragraph
    /// separators).
    public static func checkTitle(_ title: String) throws {
        guard title.utf8.count <= ActivityLimits.maximumTitleLength else {
            throw ServiceError.invalidArguments("\"title\" must be a string of at most "
                + "\(Self.size(ActivityLimits.maximumTitleLength)), not \(title.utf8.count)")
        }
        guard !UnsafeCharacters.occur(in: title) else {
            throw ServiceError.invalidArguments(
                "\"title\" must not hold control characters, bidirectional controls or line separators")
        }
    }

    /// A limit in bytes as error messages say it: "4 KiB (4096 bytes)".
    private static func size(_ bytes: Int) -> String {
        bytes % 1024 == 0 ? "\(bytes / 1024) KiB (\(bytes) bytes)" : "\(bytes) bytes"
    }
}
