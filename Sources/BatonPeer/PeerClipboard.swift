import BatonGLib

/// What a device announces when its person copies something (``PeerMessage/clipboardOffer(_:)``):
/// the types it can be pasted as, never the content, which moves only when a paired device
/// pastes (``PeerMessage/clipboardFetch(request:token:type:offset:)``).
public struct PeerClipboardOffer: Hashable, Sendable {
    /// One type the copy can be pasted as, and its size in bytes when the origin knows it.
    public struct Item: Hashable, Sendable {
        public var type: String
        public var size: UInt64?

        public init(type: String, size: UInt64? = nil) {
            self.type = type
            self.size = size
        }
    }

    /// The announcement's name, which fetches give: ``tokenLength`` lowercase hex digits,
    /// random, new for each copy.
    public var token: String
    /// The types, as the origin's app offers them: at most ``maximumTypes``.
    public var items: [Item]
    /// Seconds the announcement lasts: 1 to ``maximumLifetime``.
    public var lifetime: UInt32

    /// The most types one announcement lists.
    public static let maximumTypes = 16
    /// The longest an announcement lasts, in seconds.
    public static let maximumLifetime: UInt32 = 120
    /// The longest type, in bytes.
    public static let maximumTypeLength = 127
    /// The hex digits of a token (16 random bytes).
    public static let tokenLength = 32
    /// The most bytes of one type a device sends, in ``PeerClipboardAnswer/part(offset:total:bytes:)``s.
    public static let maximumDataSize = 64 << 20
    /// The most bytes one fetch is answered with: a larger content is fetched window by
    /// window, each fetch asking from where the last ended, so that it moves no faster than
    /// the pasting device takes it and the link's other messages pass between its windows.
    public static let maximumWindow = 1 << 20
    /// The most bytes one part carries: a part stays well within a frame (``PeerFrame/maximumBodySize``).
    public static let maximumPartSize = 192 << 10

    public init(token: String, items: [Item], lifetime: UInt32) {
        self.token = token
        self.items = items
        self.lifetime = lifetime
    }

    /// The types, in the origin's order.
    public var types: [String] { items.map(\.type) }

    /// A new random token.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<tokenLength).map { _ in digits[Int.random(in: 0..<16, using: &generator)] })
    }

    /// Whether `token` is ``tokenLength`` lowercase hex digits.
    public static func isToken(_ token: String) -> Bool {
        token.utf8.count == tokenLength && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Whether `text` is a type a clipboard offer may list: `type/subtype` (``PeerDocument/isMIMEType(_:)``),
    /// then optional parameters (`;charset=utf-8`), at most ``maximumTypeLength`` bytes in all.
    /// The display server's own targets (`UTF8_STRING`, `TARGETS`) are not types.
    public static func isType(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumTypeLength else { return false }
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard let base = parts.first, PeerDocument.isMIMEType(String(base)) else { return false }
        return parts.dropFirst().allSatisfy { parameter in
            let trimmed = parameter.drop { $0 == " " }
            let pair = trimmed.split(separator: "=", omittingEmptySubsequences: false)
            return pair.count == 2 && pair.allSatisfy { !$0.isEmpty && $0.allSatisfy(parameterCharacters.contains) }
        }
    }

    private static let parameterCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&^_.+-")

    /// The message's record: `token` (s), `types` (aa{sv}: `type` s, `size` t when known),
    /// `lifetime` (u).
    public var record: [String: BusValue] {
        ["token": .string(token), "lifetime": .uint32(lifetime),
         "types": .dictionaries(items.map { item in
             var record: [String: BusValue] = ["type": .string(item.type)]
             if let size = item.size { record["size"] = .uint64(size) }
             return record
         })]
    }

    /// Reads an announcement, every field checked.
    ///
    /// - Throws: ``PeerProtocolError`` naming the bad field.
    public init(record: [String: BusValue]) throws {
        guard let token = record["token"]?.string, Self.isToken(token) else {
            throw PeerProtocolError("clipboardOffer message: \"token\" must be \(Self.tokenLength) lowercase hex digits")
        }
        guard case .uint32(let lifetime)? = record["lifetime"], (1...Self.maximumLifetime).contains(lifetime) else {
            throw PeerProtocolError("clipboardOffer message: \"lifetime\" must be a uint32 of 1 to \(Self.maximumLifetime) seconds")
        }
        guard let records = record["types"]?.dictionaries, (1...Self.maximumTypes).contains(records.count) else {
            throw PeerProtocolError("clipboardOffer message: \"types\" must be a list of 1 to \(Self.maximumTypes) records")
        }
        var items: [Item] = []
        for item in records {
            guard let type = item["type"]?.string, Self.isType(type) else {
                throw PeerProtocolError("clipboardOffer message: each type must be TYPE/SUBTYPE with optional ;NAME=VALUE parameters, at most \(Self.maximumTypeLength) bytes")
            }
            guard !items.contains(where: { $0.type == type }) else {
                throw PeerProtocolError("clipboardOffer message: a type is listed twice")
            }
            var size: UInt64?
            if let value = item["size"] {
                guard case .uint64(let known) = value else {
                    throw PeerProtocolError("clipboardOffer message: a type's \"size\" must be a uint64")
                }
                size = known
            }
            items.append(Item(type: type, size: size))
        }
        self.init(token: token, items: items, lifetime: lifetime)
    }
}

/// Why a clipboard fetch failed, as ``PeerClipboardAnswer/failed(_:)`` says it.
public enum PeerClipboardFailure: UInt32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The token is not the origin's current announcement: replaced, withdrawn or expired.
    case expired = 1
    /// The announcement lists no such type.
    case typeNotOffered
    /// The content is over ``PeerClipboardOffer/maximumDataSize``.
    case tooLarge
    /// The origin's clipboard could not be read (changed meanwhile, its app did not answer,
    /// no clipboard).
    case unreadable
    /// The origin no longer shares its clipboard with the asking device (the setting, the device's).
    case refused
    /// The asking device has too many fetches under way.
    case busy

    public var description: String {
        switch self {
        case .expired: "the copy is no longer on offer"
        case .typeNotOffered: "the copy is not offered as that type"
        case .tooLarge: "the copy is over \(PeerClipboardOffer.maximumDataSize >> 20) MiB"
        case .unreadable: "the other device could not read its clipboard"
        case .refused: "the other device does not share its clipboard with this one"
        case .busy: "too many pastes from this device are under way"
        }
    }
}

/// The answer to a clipboard fetch: the content in parts, in order, or why not.
public enum PeerClipboardAnswer: Hashable, Sendable {
    /// `bytes` of the content from `offset`, which is `total` bytes long (at most
    /// ``PeerClipboardOffer/maximumDataSize``); parts come in order, each at most
    /// ``PeerClipboardOffer/maximumPartSize`` bytes, and only an empty content has an empty part.
    case part(offset: UInt32, total: UInt32, bytes: [UInt8])
    case failed(PeerClipboardFailure)

    /// The parts a fetch from `offset` is answered with: the window of `content` from there,
    /// at most ``PeerClipboardOffer/maximumWindow`` bytes, in parts of at most
    /// ``PeerClipboardOffer/maximumPartSize``; none when `offset` is past the end.
    public static func parts(of content: [UInt8], from offset: Int = 0) -> [PeerClipboardAnswer] {
        guard !content.isEmpty else { return offset == 0 ? [.part(offset: 0, total: 0, bytes: [])] : [] }
        guard offset < content.count else { return [] }
        let end = min(content.count, offset + PeerClipboardOffer.maximumWindow)
        return parts(ofWindow: Array(content[offset..<end]), at: offset, total: content.count)
    }

    /// The parts of `window`, the bytes from `offset` of a content `total` bytes long (a
    /// file's, read from there).
    public static func parts(ofWindow window: [UInt8], at offset: Int, total: Int) -> [PeerClipboardAnswer] {
        guard !window.isEmpty else { return total == 0 ? [.part(offset: 0, total: 0, bytes: [])] : [] }
        return stride(from: 0, to: window.count, by: PeerClipboardOffer.maximumPartSize).map { start in
            .part(offset: UInt32(offset + start), total: UInt32(total),
                  bytes: Array(window[start..<min(window.count, start + PeerClipboardOffer.maximumPartSize)]))
        }
    }

    /// Whether this part ends a window of a fetch from `offset`: the content's last, or the
    /// last of ``PeerClipboardOffer/maximumWindow`` bytes from `offset`.
    public func endsWindow(from offset: UInt32) -> Bool {
        guard case .part(let start, let total, let bytes) = self else { return true }
        let end = UInt64(start) + UInt64(bytes.count)
        return end == UInt64(total) || end == UInt64(offset) + UInt64(PeerClipboardOffer.maximumWindow)
    }

    /// The fields it adds to the message's record: `offset`, `total` (u) and `bytes` (ay), or
    /// `failure` (u, ``PeerClipboardFailure``).
    var fields: [String: BusValue] {
        switch self {
        case .part(let offset, let total, let bytes):
            ["offset": .uint32(offset), "total": .uint32(total), "bytes": .bytes(bytes)]
        case .failed(let failure):
            ["failure": .uint32(failure.rawValue)]
        }
    }

    /// Reads an answer from its message's record, every field checked.
    ///
    /// - Throws: ``PeerProtocolError`` naming the bad field.
    init(record: [String: BusValue]) throws {
        if let value = record["failure"] {
            guard case .uint32(let code) = value, let failure = PeerClipboardFailure(rawValue: code) else {
                throw PeerProtocolError("clipboardData message: \"failure\" must be a known reason code")
            }
            self = .failed(failure)
            return
        }
        guard case .uint32(let offset)? = record["offset"], case .uint32(let total)? = record["total"],
              let bytes = record["bytes"]?.bytes else {
            throw PeerProtocolError("clipboardData message: \"offset\", \"total\" and \"bytes\", or a \"failure\"")
        }
        guard total <= PeerClipboardOffer.maximumDataSize, bytes.count <= PeerClipboardOffer.maximumPartSize,
              UInt64(offset) + UInt64(bytes.count) <= UInt64(total), bytes.isEmpty == (total == 0) else {
            throw PeerProtocolError("clipboardData message: a part of 1 to \(PeerClipboardOffer.maximumPartSize) bytes within a content of at most \(PeerClipboardOffer.maximumDataSize) bytes")
        }
        self = .part(offset: offset, total: total, bytes: bytes)
    }
}
