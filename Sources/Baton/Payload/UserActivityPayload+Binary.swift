import Foundation

/// Baton's binary activity format, version 1. All integers are unsigned LEB128 varints
/// unless said otherwise; strings are a varint byte count and UTF-8.
///
/// ```
/// payload  := "BATN" version:u8 flags:u8 type:string [title:string] [url:string]
///             [expiration:f64] keywordCount:varint keyword:string* infoLength:varint info:dict
/// flags    := bit0 eligible, bit1 continuation streams, bit2 has title, bit3 has URL,
///             bit4 has expiration
/// value    := tag:u8 body — 0 null, 1 false, 2 true, 3 int (zigzag varint), 4 double (f64),
///             5 string, 6 data (varint count, bytes), 7 date (f64 seconds since 2001),
///             8 url (string), 9 uuid (16 bytes), 10 array (count, value*),
///             11 dictionary (count, (key:string value)*)
/// f64      := IEEE 754 bits, big-endian
/// ```
/// `info` is the `userInfo` dictionary's body (a count and entries); its byte length comes
/// first so the size limit is checked before it is read.
extension UserActivityPayload {
    static let magic: [UInt8] = Array("BATN".utf8)
    /// How deep `userInfo` values may nest: arrays and dictionaries inside the top-level
    /// dictionary, at most this many levels.
    public static let maximumNesting = 32

    private enum Flag {
        static let eligible: UInt8 = 1 << 0
        static let streams: UInt8 = 1 << 1
        static let title: UInt8 = 1 << 2
        static let url: UInt8 = 1 << 3
        static let expiration: UInt8 = 1 << 4
        static let all: UInt8 = 0b1_1111
    }

    /// The number of bytes `userInfo` takes encoded: what ``UserActivity/maximumUserInfoSize``
    /// limits.
    public var encodedUserInfoSize: Int {
        var writer = BinaryWriter()
        writer.dictionaryBody(userInfo)
        return writer.bytes.count
    }

    /// Encodes the payload in Baton's binary format. What it writes, ``init(decoding:)-(Data)``
    /// reads back; what the decoder would refuse, it refuses here, so a sender learns of a
    /// problem before the receiver does.
    ///
    /// - Throws: ``UserActivityError/userInfoTooLarge(size:limit:)`` when `userInfo` encodes
    ///   to more than ``UserActivity/maximumUserInfoSize`` bytes;
    ///   ``UserActivityError/invalidUserInfo(_:)`` when `userInfo` nests deeper than 32, naming
    ///   the place of a value too deep (`userInfo["draft"]["to"][2]…`);
    ///   ``UserActivityError/invalidActivity(_:)`` for an empty type, a text field over
    ///   ``maximumFieldLength`` (naming which), or more than ``maximumEncodedSize`` bytes in all;
    ///   ``UserActivityError/invalidWebpageURL(_:)`` for a URL that is not http or https.
    public func encoded() throws -> Data {
        Data(try encodedBytes())
    }

    /// Encodes the payload as ``encoded()`` does, into the byte array D-Bus and peer
    /// messages carry, without a copy into `Data`.
    public func encodedBytes() throws -> [UInt8] {
        guard !activityType.isEmpty else {
            throw UserActivityError.invalidActivity("the activity type is empty")
        }
        for (key, value) in userInfo {
            if let place = UserInfoPath.firstPlace(in: value, where: { $1 >= Self.maximumNesting ? "too deep" : nil }) {
                throw UserActivityError.invalidUserInfo(
                    "\(UserInfoPath.describe([.key(key)] + place.steps.reversed())) is nested deeper than \(Self.maximumNesting) levels")
            }
        }
        var info = BinaryWriter()
        info.dictionaryBody(userInfo)
        guard info.bytes.count <= UserActivity.maximumUserInfoSize else {
            throw UserActivityError.userInfoTooLarge(
                size: info.bytes.count, limit: UserActivity.maximumUserInfoSize)
        }
        if let webpageURL { try Self.validateWebpageURL(webpageURL) }
        let fields = [("the activity type", activityType), ("the title", title ?? ""),
                      ("the webpage URL", webpageURL?.absoluteString ?? "")]
            + keywords.map { ("a keyword", $0) }
        for (name, field) in fields where field.utf8.count > Self.maximumFieldLength {
            throw UserActivityError.invalidActivity(
                "\(name) is \(field.utf8.count) bytes, over the limit of \(Self.maximumFieldLength) bytes")
        }

        var flags: UInt8 = 0
        if isEligibleForHandoff { flags |= Flag.eligible }
        if supportsContinuationStreams { flags |= Flag.streams }
        if title != nil { flags |= Flag.title }
        if webpageURL != nil { flags |= Flag.url }
        if expirationDate != nil { flags |= Flag.expiration }

        var writer = BinaryWriter()
        writer.raw(Self.magic)
        writer.byte(Self.formatVersion)
        writer.byte(flags)
        writer.string(activityType)
        if let title { writer.string(title) }
        if let webpageURL { writer.string(webpageURL.absoluteString) }
        if let expirationDate { writer.double(expirationDate.timeIntervalSinceReferenceDate) }
        writer.varint(UInt64(keywords.count))
        for keyword in keywords.sorted() { writer.string(keyword) }
        writer.varint(UInt64(info.bytes.count))
        writer.raw(info.bytes)
        guard writer.bytes.count <= Self.maximumEncodedSize else {
            throw UserActivityError.invalidActivity(
                "\(writer.bytes.count) bytes encoded, over the limit of \(Self.maximumEncodedSize)")
        }
        return writer.bytes
    }

    /// The activity type, expiration date and continuation-streams flag of an encoded payload, read from its header
    /// alone: for checking what a payload is without decoding its `userInfo`, which the app
    /// that continues it decodes.
    ///
    /// - Throws: ``UserActivityError/malformedPayload(_:)`` for bytes over
    ///   ``maximumEncodedSize`` or whose header is not a version-1 payload's.
    public static func header(ofEncoded bytes: [UInt8]) throws
        -> (activityType: String, expirationDate: Date?, supportsContinuationStreams: Bool) {
        var reader = BinaryReader(bytes)
        let header = try Header(reading: &reader)
        return (header.activityType, header.expirationDate, header.flags & Flag.streams != 0)
    }

    /// The fields before the keywords, as written: what ``header(ofEncoded:)`` reads alone and
    /// ``init(decoding:)-([UInt8])`` reads first.
    private struct Header {
        let flags: UInt8
        let activityType: String
        let title: String?
        /// The webpage URL's text, not yet checked.
        let webpageURLText: String?
        let expirationDate: Date?

        /// Reads the header from the start of `reader`, whose bytes are checked against
        /// ``maximumEncodedSize`` first.
        init(reading reader: inout BinaryReader) throws {
            guard reader.size <= maximumEncodedSize else {
                throw UserActivityError.malformedPayload(
                    "\(reader.size) bytes is over the limit of \(maximumEncodedSize)")
            }
            guard try reader.raw(magic.count) == magic else {
                throw UserActivityError.malformedPayload("not a Baton activity (wrong magic)")
            }
            let version = try reader.byte()
            guard version == formatVersion else {
                throw UserActivityError.malformedPayload("unknown format version \(version)")
            }
            flags = try reader.byte()
            guard flags & ~Flag.all == 0 else {
                throw UserActivityError.malformedPayload("unknown flags \(flags)")
            }
            activityType = try reader.string(maximumLength: maximumFieldLength)
            guard !activityType.isEmpty else {
                throw UserActivityError.malformedPayload("empty activity type")
            }
            title = flags & Flag.title != 0 ? try reader.string(maximumLength: maximumFieldLength) : nil
            webpageURLText = flags & Flag.url != 0 ? try reader.string(maximumLength: maximumFieldLength) : nil
            expirationDate = flags & Flag.expiration != 0
                ? Date(timeIntervalSinceReferenceDate: try reader.double()) : nil
        }
    }

    /// Decodes a payload written by ``encoded()``.
    ///
    /// - Throws: ``UserActivityError/malformedPayload(_:)`` for bytes that are not a
    ///   version-1 payload (wrong magic, unknown version or tag, truncation, trailing bytes,
    ///   invalid UTF-8, URL or nesting deeper than 32);
    ///   ``UserActivityError/userInfoTooLarge(size:limit:)`` when `userInfo` is over the limit.
    public init(decoding data: Data) throws {
        try self.init(decoding: Array(data))
    }

    /// Decodes a payload written by ``encodedBytes()``, as ``init(decoding:)-(Data)`` does.
    public init(decoding bytes: [UInt8]) throws {
        var reader = BinaryReader(bytes)
        let header = try Header(reading: &reader)
        var webpageURL: URL?
        if let text = header.webpageURLText {
            guard let url = URL(string: text), url.absoluteString.utf8.count <= Self.maximumFieldLength,
                  (try? Self.validateWebpageURL(url)) != nil else {
                throw UserActivityError.malformedPayload("invalid webpage URL")
            }
            webpageURL = url
        }
        let keywordCount = try reader.count()
        var keywords = Set<String>()
        for _ in 0..<keywordCount {
            keywords.insert(try reader.string(maximumLength: Self.maximumFieldLength))
        }
        let infoLength = try reader.count()
        guard infoLength <= UserActivity.maximumUserInfoSize else {
            throw UserActivityError.userInfoTooLarge(size: infoLength, limit: UserActivity.maximumUserInfoSize)
        }
        let end = reader.offset + infoLength
        let userInfo = try reader.dictionaryBody(depth: 0)
        guard reader.offset == end else {
            throw UserActivityError.malformedPayload("userInfo length does not match its contents")
        }
        guard reader.isAtEnd else {
            throw UserActivityError.malformedPayload("trailing bytes after the activity")
        }
        self.init(
            activityType: header.activityType, title: header.title, userInfo: userInfo, webpageURL: webpageURL,
            expirationDate: header.expirationDate, keywords: keywords,
            isEligibleForHandoff: header.flags & Flag.eligible != 0,
            supportsContinuationStreams: header.flags & Flag.streams != 0)
    }
}
