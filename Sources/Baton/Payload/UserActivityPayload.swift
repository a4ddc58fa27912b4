import Foundation

/// Everything one activity carries across devices, as a value: what the service moves
/// between processes and over the network.
///
/// ``encoded()`` writes Baton's compact binary format (version 1); ``init(decoding:)-(Data)``
/// reads it back and throws on anything else, whatever the bytes: it never traps.
public struct UserActivityPayload: Hashable, Sendable {
    /// The format version that ``encoded()`` writes.
    public static let formatVersion: UInt8 = 1
    /// The largest encoded payload ``init(decoding:)-(Data)`` accepts: the `userInfo` limit plus
    /// room for the other fields.
    public static let maximumEncodedSize = UserActivity.maximumUserInfoSize + 16 * 1024
    /// The longest activity type, title, keyword or URL, in UTF-8 bytes.
    public static let maximumFieldLength = 4 * 1024

    public var activityType: String
    public var title: String?
    public var userInfo: [String: UserInfoValue]
    public var webpageURL: URL?
    public var expirationDate: Date?
    public var keywords: Set<String>
    public var isEligibleForHandoff: Bool
    public var supportsContinuationStreams: Bool

    public init(
        activityType: String,
        title: String? = nil,
        userInfo: [String: UserInfoValue] = [:],
        webpageURL: URL? = nil,
        expirationDate: Date? = nil,
        keywords: Set<String> = [],
        isEligibleForHandoff: Bool = true,
        supportsContinuationStreams: Bool = false
    ) {
        self.activityType = activityType
        self.title = title
        self.userInfo = userInfo
        self.webpageURL = webpageURL
        self.expirationDate = expirationDate
        self.keywords = keywords
        self.isEligibleForHandoff = isEligibleForHandoff
        self.supportsContinuationStreams = supportsContinuationStreams
    }

    /// Whether `url` may be an activity's webpage URL: an absolute http or https URL with a host.
    public static func isWebpageURL(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" || scheme == "https") && !(url.host ?? "").isEmpty
    }

    /// Throws unless ``isWebpageURL(_:)`` holds for `url`.
    static func validateWebpageURL(_ url: URL) throws {
        guard isWebpageURL(url) else { throw UserActivityError.invalidWebpageURL(url.absoluteString) }
    }
}

extension UserActivity {
    /// The activity as a value to send, with `userInfo` reduced to
    /// ``requiredUserInfoKeys`` when they are set.
    public var payload: UserActivityPayload {
        var info = userInfo
        if let required = requiredUserInfoKeys {
            info = info.filter { required.contains($0.key) }
        }
        return UserActivityPayload(
            activityType: activityType, title: title, userInfo: info, webpageURL: webpageURL,
            expirationDate: expirationDate, keywords: keywords,
            isEligibleForHandoff: isEligibleForHandoff,
            supportsContinuationStreams: supportsContinuationStreams)
    }

    /// Creates an activity holding `payload`, as a continuation delivers it.
    ///
    /// - Throws: ``UserActivityError/invalidWebpageURL(_:)`` when the payload's URL is not
    ///   http or https.
    public convenience init(payload: UserActivityPayload, center: ActivityCenter = .shared) throws {
        self.init(activityType: payload.activityType, center: center)
        try setWebpageURL(payload.webpageURL)
        title = payload.title
        userInfo = payload.userInfo
        expirationDate = payload.expirationDate
        keywords = payload.keywords
        isEligibleForHandoff = payload.isEligibleForHandoff
        supportsContinuationStreams = payload.supportsContinuationStreams
    }
}
