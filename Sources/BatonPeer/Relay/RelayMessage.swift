import Foundation

/// A message of Syncthing's relay protocol (version 1), which Baton uses to reach a paired
/// device through a relay server (`strelaysrv`, Debian's `syncthing-relaysrv`) when it cannot
/// be dialed: a 12-byte header (magic `0x9E79BC40`, type, length, big-endian) and an XDR body
/// of at most 1024 bytes.
public enum RelayMessage: Equatable, Sendable {
    case ping
    case pong
    /// Joins the relay to be reached through it (protocol mode).
    case joinRelayRequest
    /// Joins a session (session mode) with the key of its invitation.
    case joinSessionRequest(key: [UInt8])
    /// The relay's answer: `0` success, `1` not found, `2` already connected, `100` unexpected message.
    case response(code: Int32, message: String)
    /// Asks to reach the device whose certificate's SHA-256 is `id`.
    case connectRequest(id: [UInt8])
    /// A session to join: with the device `from`, on `address` (empty: the relay's own) and `port`;
    /// `serverSocket` says which side is the TLS server inside it.
    case sessionInvitation(from: [UInt8], key: [UInt8], address: [UInt8], port: UInt16, serverSocket: Bool)
    /// The relay takes no more.
    case relayFull

    public static let magic: UInt32 = 0x9E79_BC40
    public static let headerSize = 12
    /// The largest body the relay reads or sends.
    public static let maximumBodySize = 1024
    /// The longest id, key or address (`opaque<32>`).
    public static let maximumFieldSize = 32

    /// The message type's number on the wire.
    var type: Int32 {
        switch self {
        case .ping: return 0
        case .pong: return 1
        case .joinRelayRequest: return 2
        case .joinSessionRequest: return 3
        case .response: return 4
        case .connectRequest: return 5
        case .sessionInvitation: return 6
        case .relayFull: return 7
        }
    }

    /// The message with its header.
    ///
    /// - Throws: ``RelayProtocolError`` when a field is over its size.
    public func encoded() throws -> [UInt8] {
        var body: [UInt8] = []
        switch self {
        case .ping, .pong, .joinRelayRequest, .relayFull:
            break
        case .joinSessionRequest(let key):
            try Self.appendOpaque(key, to: &body, field: "key")
        case .response(let code, let message):
            Self.append(UInt32(bitPattern: code), to: &body)
            try Self.appendOpaque(Array(message.utf8), to: &body, field: "message", limit: Self.maximumBodySize - 8)
        case .connectRequest(let id):
            try Self.appendOpaque(id, to: &body, field: "id")
        case .sessionInvitation(let from, let key, let address, let port, let serverSocket):
            try Self.appendOpaque(from, to: &body, field: "from")
            try Self.appendOpaque(key, to: &body, field: "key")
            try Self.appendOpaque(address, to: &body, field: "address")
            Self.append(UInt32(port), to: &body)
            Self.append(serverSocket ? 1 : 0, to: &body)
        }
        var bytes: [UInt8] = []
        Self.append(Self.magic, to: &bytes)
        Self.append(UInt32(bitPattern: type), to: &bytes)
        Self.append(UInt32(body.count), to: &bytes)
        return bytes + body
    }

    /// The body length a header announces.
    ///
    /// - Throws: ``RelayProtocolError`` for a wrong magic or a length over ``maximumBodySize``.
    public static func bodyLength(ofHeader header: [UInt8]) throws -> Int {
        guard header.count == headerSize else { throw RelayProtocolError("a header is 12 bytes") }
        guard readUInt32(header, at: 0) == magic else { throw RelayProtocolError("not a relay message (wrong magic)") }
        let length = Int(readUInt32(header, at: 8))
        guard length <= maximumBodySize else { throw RelayProtocolError("a message of \(length) bytes, over \(maximumBodySize)") }
        return length
    }

    /// Reads one whole message: a header and the body it announces, nothing more.
    ///
    /// - Throws: ``RelayProtocolError`` saying what is wrong.
    public init(decoding bytes: [UInt8]) throws {
        guard bytes.count >= Self.headerSize else { throw RelayProtocolError("a message is at least 12 bytes") }
        let length = try Self.bodyLength(ofHeader: Array(bytes[0..<Self.headerSize]))
        guard bytes.count == Self.headerSize + length else {
            throw RelayProtocolError("the header announces \(length) bytes, \(bytes.count - Self.headerSize) came")
        }
        let type = Int32(bitPattern: Self.readUInt32(bytes, at: 4))
        var reader = XDRReader(Array(bytes[Self.headerSize...]))
        switch type {
        case 0: self = .ping
        case 1: self = .pong
        case 2:
            // A newer relay's join carries a token (a string); none is sent here, and an empty
            // one reads the same.
            if !reader.isAtEnd { _ = try reader.opaque(limit: Self.maximumBodySize) }
            self = .joinRelayRequest
        case 3: self = .joinSessionRequest(key: try reader.opaque(limit: Self.maximumFieldSize))
        case 4:
            let code = Int32(bitPattern: try reader.uint32())
            let message = try reader.opaque(limit: Self.maximumBodySize)
            self = .response(code: code, message: String(decoding: message, as: UTF8.self))
        case 5: self = .connectRequest(id: try reader.opaque(limit: Self.maximumFieldSize))
        case 6:
            let from = try reader.opaque(limit: Self.maximumFieldSize)
            let key = try reader.opaque(limit: Self.maximumFieldSize)
            let address = try reader.opaque(limit: Self.maximumFieldSize)
            let port = try reader.uint32()
            let server = try reader.uint32()
            guard port <= UInt32(UInt16.max) else { throw RelayProtocolError("a port over 65535") }
            self = .sessionInvitation(from: from, key: key, address: address, port: UInt16(port), serverSocket: server != 0)
        case 7: self = .relayFull
        default: throw RelayProtocolError("an unknown message type \(type)")
        }
        guard reader.isAtEnd else { throw RelayProtocolError("bytes after the message's fields") }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func appendOpaque(_ value: [UInt8], to bytes: inout [UInt8], field: String,
                                     limit: Int = maximumFieldSize) throws {
        guard value.count <= limit else { throw RelayProtocolError("the \(field) is \(value.count) bytes, over \(limit)") }
        append(UInt32(value.count), to: &bytes)
        bytes += value
        bytes += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Reads XDR fields in order, never past the end.
struct XDRReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func uint32() throws -> UInt32 {
        guard bytes.count - offset >= 4 else { throw RelayProtocolError("a message cut short") }
        defer { offset += 4 }
        return RelayMessage.readUInt32(bytes, at: offset)
    }

    /// An `opaque<limit>`: a length, the bytes, zero padding to 4.
    mutating func opaque(limit: Int) throws -> [UInt8] {
        let length = Int(try uint32())
        guard length <= limit else { throw RelayProtocolError("a field of \(length) bytes, over \(limit)") }
        let padded = length + (4 - length % 4) % 4
        guard bytes.count - offset >= padded else { throw RelayProtocolError("a message cut short") }
        defer { offset += padded }
        return Array(bytes[offset..<offset + length])
    }
}

/// Why a relay message cannot be read or sent.
public struct RelayProtocolError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
