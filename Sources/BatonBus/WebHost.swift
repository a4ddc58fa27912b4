import CGLib
import Foundation

/// The host of a web page's URL from outside (a link a phone shared), read the way a browser
/// will reach it and shown in a form that cannot pass for another.
///
/// The host is percent-decoded, then must be a DNS name or an IP address:
/// - a name is converted to its ASCII form with GLib's IDNA (`g_hostname_to_ascii`), so an
///   internationalized name is shown in punycode (`xn--…`, never `bücher.example` or a
///   Cyrillic `аpple.com`); every label must then be 1 to 63 letters, digits and inner
///   hyphens (LDH), the whole at most 253 bytes, and each `xn--` label must decode to text
///   without ``UnsafeCharacters`` that encodes back to it;
/// - an IPv4 address in its dotted-decimal form (`127.0.0.1`), or an IPv6 address in
///   brackets (`[::1]`), shown in its canonical form.
///
/// Anything else is refused: control and bidirectional characters, bytes that are not UTF-8,
/// spaces and other punctuation, and a name whose last label is a number (`2130706433`,
/// `0x7f.1`), which browsers read as an IPv4 address in another form.
public struct WebHost: Hashable, Sendable, CustomStringConvertible {
    /// What the host is.
    public enum Kind: Hashable, Sendable {
        case name
        case ipv4
        case ipv6
    }

    /// The host in ASCII: a lower-case name without a final dot, or an IP address in its
    /// canonical form (IPv6 without brackets).
    public let ascii: String
    public let kind: Kind

    /// The longest percent-encoded host read, in bytes.
    public static let maximumEncodedLength = 1024

    /// The host as people are shown it: ``ascii``, an IPv6 address in brackets.
    public var description: String { kind == .ipv6 ? "[\(ascii)]" : ascii }

    /// Reads the host of `url`, as its text has it (percent-encoded).
    ///
    /// - Throws: ``WebHostError`` saying why the host is refused.
    public init(of url: URL) throws(WebHostError) {
        guard let host = url.host(percentEncoded: true), !host.isEmpty else { throw WebHostError("the link names no host") }
        try self.init(percentEncoded: host)
    }

    /// Reads a host as a URL's text has it: percent-encoded, an IPv6 address with or without
    /// its brackets.
    ///
    /// - Throws: ``WebHostError`` saying why the host is refused.
    public init(percentEncoded text: String) throws(WebHostError) {
        guard text.utf8.count <= Self.maximumEncodedLength else {
            throw WebHostError("the host is longer than \(Self.maximumEncodedLength) bytes")
        }
        if text.hasPrefix("[") || text.contains(":") {
            let inner = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
            guard let address = Self.canonicalIPv6(inner) else {
                throw WebHostError("the host \"\(Excerpt.of(text))\" is not an IPv6 address")
            }
            (ascii, kind) = (address, .ipv6)
            return
        }
        guard let decoded = text.removingPercentEncoding else {
            throw WebHostError("the host \"\(Excerpt.of(text))\" does not decode to UTF-8 text")
        }
        guard !UnsafeCharacters.occur(in: decoded) else {
            throw WebHostError("the host \"\(Excerpt.of(decoded))\" holds control or bidirectional characters")
        }
        if let address = Self.canonicalIPv4(decoded) {
            (ascii, kind) = (address, .ipv4)
            return
        }
        guard let converted = Self.toASCII(decoded) else {
            throw WebHostError("the host \"\(Excerpt.of(decoded))\" is not a valid internationalized name")
        }
        let name = converted.hasSuffix(".") ? String(converted.dropLast()) : converted
        try Self.checkName(name, shown: decoded)
        (ascii, kind) = (name, .name)
    }

    /// Throws unless `name` is an ASCII DNS name of LDH labels whose last is not a number and
    /// whose `xn--` labels are valid punycode.
    private static func checkName(_ name: String, shown: String) throws(WebHostError) {
        let refused = WebHostError("the host \"\(Excerpt.of(shown))\" is not a valid name")
        guard !name.isEmpty, name.utf8.count <= 253 else { throw refused }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            let bytes = Array(label.utf8)
            guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-"),
                  bytes.allSatisfy(isLDH) else { throw refused }
            if label.hasPrefix("xn--"), !isPunycodeLabel(String(label)) { throw refused }
        }
        if let last = labels.last, endsInNumber(last) {
            throw WebHostError("the host \"\(Excerpt.of(shown))\" ends in a number but is not an IPv4 address")
        }
    }

    /// A lower-case letter, digit or hyphen: what ``toASCII(_:)`` leaves of a valid label.
    private static func isLDH(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }

    /// Whether a browser would read a host with this last label as an IPv4 address: all
    /// digits, or `0x` and hexadecimal digits.
    private static func endsInNumber(_ label: Substring) -> Bool {
        if label.allSatisfy(\.isASCII) && label.allSatisfy(\.isNumber) { return true }
        guard label.hasPrefix("0x") else { return false }
        return label.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// Whether an `xn--` label decodes to text without unsafe characters that encodes back to it.
    private static func isPunycodeLabel(_ label: String) -> Bool {
        guard let unicode = toUnicode(label), !UnsafeCharacters.occur(in: unicode), unicode != label else { return false }
        return toASCII(unicode) == label
    }

    private static func toASCII(_ text: String) -> String? {
        guard let converted = g_hostname_to_ascii(text) else { return nil }
        defer { g_free(converted) }
        return String(validatingCString: converted)
    }

    private static func toUnicode(_ text: String) -> String? {
        guard let converted = g_hostname_to_unicode(text) else { return nil }
        defer { g_free(converted) }
        return String(validatingCString: converted)
    }

    /// `text` as an IPv4 address in dotted-decimal form: four numbers of 0 to 255 without
    /// leading zeros (what `inet_pton` accepts); `nil` for anything else.
    private static func canonicalIPv4(_ text: String) -> String? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { "\($0[0]).\($0[1]).\($0[2]).\($0[3])" }
    }

    /// `text` as an IPv6 address in its canonical form; `nil` for anything else (a zone too).
    private static func canonicalIPv6(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(validatingCString: buffer)
    }
}

/// Why a web page's host was refused.
public struct WebHostError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
