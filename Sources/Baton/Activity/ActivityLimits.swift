import Foundation

/// What the Baton service accepts of an activity, in one place: ``UserActivity`` keeps every
/// activity within these limits where its fields are set, and batond checks what apps publish
/// against the same ones, so nothing an app sets through the public API makes the service
/// refuse it.
///
/// - Activity type: non-empty, at most ``maximumActivityTypeLength`` bytes, no unsafe
///   character (``isUnsafe(_:)``). It cannot be changed, so an activity with any other type
///   never becomes current, and is never published.
/// - Title: at most ``maximumTitleLength`` bytes; ``UserActivity/title`` keeps the whole
///   characters that fit. Unsafe characters are cleaned where the title is published.
/// - Webpage URL: an absolute http or https URL with a host, at most
///   ``maximumWebpageURLLength`` bytes as text; ``UserActivity/setWebpageURL(_:)`` throws for
///   any other.
/// - Keywords: each at most ``maximumKeywordLength`` bytes, together at most
///   ``maximumKeywordsSize``; ``UserActivity/keywords`` keeps those that fit.
/// - Expiration date: a finite time; ``UserActivity/expirationDate`` turns an infinite one
///   into nil (never) or the distant past.
/// - `userInfo`: at most ``maximumUserInfoSize`` bytes encoded. It is filled in when the
///   activity is saved, so it is checked then: encoding throws, it is never cut.
///
/// Lengths are bytes of UTF-8.
public enum ActivityLimits {
    /// The longest text field of an encoded activity (4 KiB): what the payload decoder reads.
    public static let maximumFieldLength = UserActivityPayload.maximumFieldLength
    /// The longest activity type.
    public static let maximumActivityTypeLength = maximumFieldLength
    /// The longest title.
    public static let maximumTitleLength = maximumFieldLength
    /// The longest webpage URL, as its absolute string.
    public static let maximumWebpageURLLength = maximumFieldLength
    /// The longest keyword: a word or short phrase.
    public static let maximumKeywordLength = 255
    /// The most bytes all keywords take together, each counted as its length plus 2 (what its
    /// length takes encoded, at most): they then fit in what an encoded activity
    /// (``maximumEncodedSize``) has left when its type, title, URL and `userInfo` are as long
    /// as they may be.
    public static let maximumKeywordsSize = 4000
    /// The largest `userInfo`, in encoded bytes (64 KiB).
    public static let maximumUserInfoSize = 64 * 1024
    /// The largest encoded activity: the `userInfo` limit plus room for the other fields.
    public static let maximumEncodedSize = UserActivityPayload.maximumEncodedSize

    // MARK: Checks

    /// Whether the service accepts `type` as an activity type: non-empty, at most
    /// ``maximumActivityTypeLength`` bytes, without unsafe characters.
    public static func isValidActivityType(_ type: String) -> Bool {
        !type.isEmpty && type.utf8.count <= maximumActivityTypeLength && !containsUnsafe(type)
    }

    /// Whether the service accepts `date` as an expiration date: a finite time.
    public static func isValidExpirationDate(_ date: Date) -> Bool {
        date.timeIntervalSince1970.isFinite
    }

    /// The webpage URL the service reads from `text`, or nil unless it is at most
    /// ``maximumWebpageURLLength`` bytes and an absolute http or https URL with a host.
    public static func webpageURL(fromText text: String) -> URL? {
        guard text.utf8.count <= maximumWebpageURLLength, let url = URL(string: text),
              url.absoluteString.utf8.count <= maximumWebpageURLLength,
              UserActivityPayload.isWebpageURL(url) else { return nil }
        return url
    }

    /// Throws unless the service accepts `url` as a webpage URL (``webpageURL(fromText:)`` of
    /// its absolute string).
    ///
    /// - Throws: ``UserActivityError/invalidWebpageURL(_:)`` carrying the URL, or for one over
    ///   the limit, its start with its length and the limit.
    public static func checkWebpageURL(_ url: URL) throws {
        let text = url.absoluteString
        let length = text.utf8.count
        guard length <= maximumWebpageURLLength else {
            let start = String(text.unicodeScalars.prefix(80))
            throw UserActivityError.invalidWebpageURL(
                "\(start)… (\(length) bytes, over the limit of \(maximumWebpageURLLength) bytes)")
        }
        guard UserActivityPayload.isWebpageURL(url), webpageURL(fromText: text) != nil else {
            throw UserActivityError.invalidWebpageURL(text)
        }
    }

    /// The bytes `keywords` count against ``maximumKeywordsSize``.
    public static func keywordsSize(_ keywords: Set<String>) -> Int {
        keywords.reduce(0) { $0 + $1.utf8.count + 2 }
    }

    // MARK: Fitting

    /// `title` cut to ``maximumTitleLength`` bytes between whole characters.
    public static func fittingTitle(_ title: String) -> String {
        prefix(of: title, bytes: maximumTitleLength)
    }

    /// `keywords` within the limits: each cut to ``maximumKeywordLength`` bytes between whole
    /// characters, then, in sorted order, those that still fit in ``maximumKeywordsSize``.
    /// Keywords within the limits come back as they are.
    public static func fittingKeywords(_ keywords: Set<String>) -> Set<String> {
        let isShort = keywords.allSatisfy { $0.utf8.count <= maximumKeywordLength }
        if isShort, keywordsSize(keywords) <= maximumKeywordsSize { return keywords }
        var kept = Set<String>()
        var size = 0
        for keyword in Set(keywords.map { prefix(of: $0, bytes: maximumKeywordLength) }).sorted() {
            let cost = keyword.utf8.count + 2
            guard size + cost <= maximumKeywordsSize else { continue }
            kept.insert(keyword)
            size += cost
        }
        return kept
    }

    /// `date` as a finite expiration date: an infinite or undefined one becomes nil (never
    /// expires), one infinitely past `Date.distantPast` (already expired).
    public static func fittingExpirationDate(_ date: Date) -> Date? {
        let seconds = date.timeIntervalSinceReferenceDate
        if seconds.isFinite { return date }
        return seconds == -.infinity ? Date.distantPast : nil
    }

    /// The longest run of whole characters from the start of `text` that fits in `bytes` of UTF-8.
    public static func prefix(of text: String, bytes: Int) -> String {
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
}
