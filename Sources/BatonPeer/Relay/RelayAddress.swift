import Crypto
import Foundation

/// A relay server as Syncthing writes one, `relay://HOST:PORT/?id=DEVICE-ID&…`: where it
/// listens, and the SHA-256 of its certificate, which the connection pins. The other query
/// fields (`pingInterval`, `networkTimeout`, …) are the relay's to announce and are ignored.
public struct RelayAddress: Equatable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    /// The SHA-256 of the relay's DER certificate.
    public let certificateDigest: [UInt8]

    /// Reads a `relay://` URI.
    ///
    /// - Throws: ``RelayProtocolError`` naming what is wrong: the scheme, the port, a missing
    ///   or malformed `id`.
    public init(_ text: String) throws {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), components.scheme == "relay" else {
            throw RelayProtocolError("\"\(text.prefix(80))\" is not a relay://HOST:PORT/?id=ID address")
        }
        guard let host = components.host, !host.isEmpty else { throw RelayProtocolError("the relay address names no host") }
        guard Self.isHostName(host) else {
            throw RelayProtocolError("the relay address's host is not a host name or an IP address")
        }
        guard let port = components.port, (1...65535).contains(port) else {
            throw RelayProtocolError("the relay address names no port")
        }
        guard let id = components.queryItems?.first(where: { $0.name == "id" })?.value else {
            throw RelayProtocolError("the relay address has no id=, the relay's device id, which its certificate must match")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = UInt16(port)
        certificateDigest = try SyncthingDeviceID.digest(of: id)
    }

    /// Whether `host` (as URLComponents gives it, escapes undone) is a host name or an IPv4
    /// address (letters, digits, `-` and `.`), or an IPv6 address in brackets: so that an
    /// address reads back as it is written, and no control character reaches a log or a dial.
    static func isHostName(_ host: String) -> Bool {
        guard host.utf8.count <= 255 else { return false }
        if host.hasPrefix("[") {
            let inside = host.dropFirst().dropLast()
            return host.hasSuffix("]") && !inside.isEmpty && inside.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return host.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }
    }

    public var description: String {
        "relay://\(host.contains(":") ? "[\(host)]" : host):\(port)/?id=\(SyncthingDeviceID.text(of: certificateDigest))"
    }
}

/// Syncthing's text form of a device id, the SHA-256 of a certificate: base32, a Luhn check
/// character after each 13, dashes every 7 (`OOAYO63-YDKIQGI-…`, 63 characters).
public enum SyncthingDeviceID {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    /// The id of a DER certificate: its SHA-256.
    public static func digest(ofCertificate der: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: der))
    }

    /// The text form of a 32-byte digest.
    public static func text(of digest: [UInt8]) -> String {
        let base32 = encode(digest)
        var checked = ""
        for start in stride(from: 0, to: 52, by: 13) {
            let group = Array(base32[base32.index(base32.startIndex, offsetBy: start)..<base32.index(base32.startIndex, offsetBy: start + 13)])
            checked += String(group) + String(checkCharacter(group))
        }
        var dashed = ""
        for (index, character) in checked.enumerated() {
            if index > 0, index % 7 == 0 { dashed += "-" }
            dashed.append(character)
        }
        return dashed
    }

    /// The digest a text id names, its check characters verified.
    ///
    /// - Throws: ``RelayProtocolError`` for anything that is not a 63- (or 56-) character id
    ///   with right check characters.
    public static func digest(of text: String) throws -> [UInt8] {
        let cleaned = text.uppercased().filter { $0 != "-" && $0 != " " }
            .map { $0 == "0" ? "O" : $0 == "1" ? "I" : $0 == "8" ? "B" : $0 }
        guard cleaned.count == 56, cleaned.allSatisfy({ alphabet.contains($0) }) else {
            throw RelayProtocolError("\"\(text.prefix(80))\" is not a device id (56 base32 characters with check characters)")
        }
        var base32: [Character] = []
        for start in stride(from: 0, to: 56, by: 14) {
            let group = Array(cleaned[start..<start + 13])
            guard checkCharacter(group) == cleaned[start + 13] else {
                throw RelayProtocolError("\"\(text.prefix(80))\" has a wrong check character: mistyped?")
            }
            base32 += group
        }
        guard let digest = decode(base32), digest.count == 32 else { throw RelayProtocolError("\"\(text.prefix(80))\" is not a device id") }
        return digest
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        var result = ""
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                result.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { result.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return result
    }

    private static func decode(_ characters: [Character]) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in characters {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | value
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
            buffer &= (1 << bits) - 1
        }
        return bytes
    }

    /// Syncthing's Luhn mod 32 check character.
    private static func checkCharacter(_ group: [Character]) -> Character {
        var factor = 1
        var sum = 0
        for character in group {
            let codepoint = alphabet.firstIndex(of: character) ?? 0
            let addend = factor * codepoint
            factor = factor == 2 ? 1 : 2
            sum += addend / 32 + addend % 32
        }
        return alphabet[(32 - sum % 32) % 32]
    }
}
