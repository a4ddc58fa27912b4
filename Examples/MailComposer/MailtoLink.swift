import Foundation

/// A `mailto:` link (RFC 6068): the recipients and fields of a new message.
///
/// Links come from outside: the desktop (a click on a link anywhere), a second launch's command
/// line, another program. Reading one never fails quietly: a link that is not `mailto:`, too
/// long, or not correctly percent-encoded is refused with ``MailtoLinkError``, and nothing is
/// opened. Header fields other than `to`, `cc`, `subject` and `body` are ignored, as RFC 6068
/// allows. Line breaks in the recipients and the subject become spaces (they would otherwise
/// start new header lines in the sent message); the body keeps them, as `\n`.
struct MailtoLink: Equatable {
    var to = ""
    var cc = ""
    var subject = ""
    var body = ""

    /// The longest link read, in bytes: far more than any real one.
    static let maximumLength = 64 * 1024

    init(to: String = "", cc: String = "", subject: String = "", body: String = "") {
        (self.to, self.cc, self.subject, self.body) = (to, cc, subject, body)
    }

    /// Reads `uri`.
    ///
    /// - Throws: ``MailtoLinkError``.
    init(uri: String) throws {
        guard uri.utf8.count <= Self.maximumLength else { throw MailtoLinkError.tooLong }
        guard uri.lowercased().hasPrefix("mailto:") else { throw MailtoLinkError.notMailto }
        let rest = uri.dropFirst("mailto:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var recipients = try Self.decode(String(parts[0]), field: "address").map { [$0] } ?? []
        var copies: [String] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.decode(String(keyValue[0]), field: "field name") ?? ""
                let value = try Self.decode(keyValue.count > 1 ? String(keyValue[1]) : "", field: name) ?? ""
                switch name.lowercased() {
                case "to": if !value.isEmpty { recipients.append(value) }
                case "cc": if !value.isEmpty { copies.append(value) }
                case "subject": subject = Self.oneLine(value)
                case "body": body = value.replacingOccurrences(of: "\r\n", with: "\n")
                default: break
                }
            }
        }
        to = Self.oneLine(recipients.joined(separator: ", "))
        cc = Self.oneLine(copies.joined(separator: ", "))
    }

    /// The link, percent-encoded: what ``init(uri:)`` reads back as this.
    var uri: String {
        var fields: [String] = []
        if !cc.isEmpty { fields.append("cc=\(Self.encode(cc))") }
        if !subject.isEmpty { fields.append("subject=\(Self.encode(subject))") }
        if !body.isEmpty { fields.append("body=\(Self.encode(body))") }
        return "mailto:\(Self.encode(to))" + (fields.isEmpty ? "" : "?" + fields.joined(separator: "&"))
    }

    /// The percent-decoded text of `text`, `nil` for none.
    private static func decode(_ text: String, field: String) throws -> String? {
        guard !text.isEmpty else { return nil }
        guard let decoded = text.removingPercentEncoding else { throw MailtoLinkError.badEncoding(field: field) }
        return decoded
    }

    /// Characters left as they are in a link; everything else is percent-encoded.
    private static let unreserved = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~@!$'()*+,;:")

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `text` with its line breaks and other control characters as spaces.
    private static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            CharacterSet.controlCharacters.contains($0) ? " " : $0
        }))
    }
}

/// Why a link could not be opened.
enum MailtoLinkError: Error, Equatable, CustomStringConvertible {
    case notMailto
    case tooLong
    case badEncoding(field: String)

    var description: String {
        switch self {
        case .notMailto: "it is not a mailto: link"
        case .tooLong: "it is longer than \(MailtoLink.maximumLength / 1024) KiB"
        case .badEncoding(let field): "its \(field) is not correctly percent-encoded"
        }
    }
}
