import Baton
import BatonBus
import Foundation

/// One message of the browser extension (`Browser/extension/background.js`): the page in
/// front of the person, or none.
///
/// The extension sends a JSON object with a `page` key:
///
/// ```json
/// {"page": {"url": "https://example.org/a", "title": "A"}}
/// {"page": null, "active": true}
/// ```
///
/// `page` is the active tab of the focused browser window, `null` when there is none to share
/// (the browser lost focus, a private window is in front, the tab shows something other than
/// an http or https page). `active` (with a `null` page only; `false` when absent) says
/// whether a browser window of the extension's profile has the focus all the same, such as
/// one showing its new-tab page. Keys the host does not know are ignored, so a newer
/// extension may add some; known keys of the wrong type refuse the message.
enum BrowserMessage: Equatable, Sendable {
    /// The focused tab shows `url`, an http or https URL the service accepts, titled `title`
    /// (as the page wrote it: ``PageActivity`` cleans it).
    case page(url: URL, title: String?)
    /// No page to share; `active` tells whether a browser window has the focus.
    case none(active: Bool)

    /// The largest message the host reads, in bytes (1 MiB, as Chromium's limit for a host's
    /// messages to the extension): a page's URL and title take at most 8 KiB once checked.
    static let maximumSize = 1024 * 1024

    /// Reads one message (the JSON text of one frame, without its length).
    ///
    /// - Throws: ``BrowserMessageError`` saying what is wrong; never traps, whatever the bytes.
    static func decode(_ bytes: [UInt8]) throws -> BrowserMessage {
        guard bytes.count <= maximumSize else { throw BrowserMessageError.tooLarge(bytes.count) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw BrowserMessageError.notJSON
        }
        guard let message = object as? [String: Any] else { throw BrowserMessageError.notAnObject }
        guard let page = message["page"] else { throw BrowserMessageError.missing("page") }
        if page is NSNull {
            guard let active = message["active"] else { return .none(active: false) }
            guard let flag = boolean(active) else { throw BrowserMessageError.wrongType("active", expected: "a boolean") }
            return .none(active: flag)
        }
        guard let fields = page as? [String: Any] else {
            throw BrowserMessageError.wrongType("page", expected: "an object or null")
        }
        guard let urlValue = fields["url"] else { throw BrowserMessageError.missing("page.url") }
        guard let text = urlValue as? String else { throw BrowserMessageError.wrongType("page.url", expected: "a string") }
        var title: String?
        if let titleValue = fields["title"], !(titleValue is NSNull) {
            guard let string = titleValue as? String else {
                throw BrowserMessageError.wrongType("page.title", expected: "a string or null")
            }
            title = string
        }
        guard let url = ActivityLimits.webpageURL(fromText: text) else {
            throw BrowserMessageError.unsupportedURL(Self.describeRefusedURL(text))
        }
        return .page(url: url, title: title)
    }

    /// A JSON boolean, which JSONSerialization reads as an `NSNumber` like any number: only
    /// `true` and `false` themselves count.
    private static func boolean(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, !(value is String) else { return nil }
        let type = String(cString: number.objCType)
        guard type == "c" || type == "B" else { return nil }
        return number.boolValue
    }

    /// Why a URL is refused, without echoing a page address into the browser's log: its
    /// scheme, or its length.
    private static func describeRefusedURL(_ text: String) -> String {
        if text.utf8.count > ActivityLimits.maximumWebpageURLLength {
            return "it is \(text.utf8.count) bytes long, over the limit of \(ActivityLimits.maximumWebpageURLLength)"
        }
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return "it is not an absolute URL" }
        let scheme = text[..<colon]
        let isScheme = scheme.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
        }
        guard isScheme else { return "it is not an absolute URL" }
        let lowered = scheme.lowercased()
        return lowered == "http" || lowered == "https"
            ? "it is not a valid \(lowered) URL with a host"
            : "its scheme is \(Excerpt.of(lowered)), not http or https"
    }
}

/// Why a message of the extension was refused.
enum BrowserMessageError: Error, Equatable, CustomStringConvertible {
    /// Longer than ``BrowserMessage/maximumSize``.
    case tooLarge(Int)
    /// Not a JSON text in UTF-8.
    case notJSON
    /// JSON, but not an object.
    case notAnObject
    /// A required key is missing.
    case missing(String)
    /// A key holds a value of another type.
    case wrongType(String, expected: String)
    /// The page's URL is not an http or https URL the service accepts, for the reason given.
    case unsupportedURL(String)

    var description: String {
        switch self {
        case .tooLarge(let size):
            return "a message of \(size) bytes is over the limit of \(BrowserMessage.maximumSize) bytes"
        case .notJSON: return "a message is not JSON text in UTF-8"
        case .notAnObject: return "a message is not a JSON object"
        case .missing(let key): return "a message has no \"\(key)\""
        case .wrongType(let key, let expected): return "\"\(key)\" of a message is not \(expected)"
        case .unsupportedURL(let reason): return "the page's URL is not shared: \(reason)"
        }
    }
}
