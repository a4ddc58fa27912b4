import Baton
import BatonTesting
import Foundation
import XCTest

/// Builds payload bytes by hand, to feed the decoder what the encoder never writes.
private struct PayloadBytes {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func raw(_ value: [UInt8]) { bytes.append(contentsOf: value) }

    mutating func varint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    mutating func string(_ value: [UInt8]) {
        varint(UInt64(value.count))
        raw(value)
    }

    mutating func string(_ value: String) { string(Array(value.utf8)) }

    /// A whole payload: header, optional fields, keywords, then `info` as the userInfo body.
    static func payload(
        magic: [UInt8] = Array("BATN".utf8), version: UInt8 = 1, flags: UInt8 = 0b1,
        type: [UInt8] = Array("test.type".utf8), title: [UInt8]? = nil, url: [UInt8]? = nil,
        keywords: [[UInt8]] = [], info: [UInt8] = [0], infoLength: UInt64? = nil
    ) -> Data {
        var writer = PayloadBytes()
        writer.raw(magic)
        writer.byte(version)
        var flags = flags
        if title != nil { flags |= 1 << 2 }
        if url != nil { flags |= 1 << 3 }
        writer.byte(flags)
        writer.string(type)
        if let title { writer.string(title) }
        if let url { writer.string(url) }
        writer.varint(UInt64(keywords.count))
        for keyword in keywords { writer.string(keyword) }
        writer.varint(infoLength ?? UInt64(info.count))
        writer.raw(info)
        return Data(writer.bytes)
    }

    /// A userInfo body of one entry `key` holding the raw value bytes `value`.
    static func info(key: [UInt8] = Array("k".utf8), value: [UInt8]) -> [UInt8] {
        var writer = PayloadBytes()
        writer.varint(1)
        writer.string(key)
        writer.raw(value)
        return writer.bytes
    }
}

private enum Tag {
    static let null: UInt8 = 0, falseValue: UInt8 = 1, trueValue: UInt8 = 2, int: UInt8 = 3
    static let double: UInt8 = 4, string: UInt8 = 5, data: UInt8 = 6, date: UInt8 = 7
    static let url: UInt8 = 8, uuid: UInt8 = 9, array: UInt8 = 10, dictionary: UInt8 = 11
}

@MainActor
final class PayloadTests: XCTestCase {

    // MARK: Fixtures

    private static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()

    /// A userInfo holding every case of ``UserInfoValue``, with edge values.
    private func everyCase() throws -> [String: UserInfoValue] {
        [
            "string": "Grüße, 世界 🎉",
            "emptyString": "",
            "int0": 0, "int1": 1, "intNeg1": -1, "int63": 63, "intNeg64": -64, "int64": 64,
            "intMax": .int(Int.max), "intMin": .int(Int.min),
            "double": .double(.pi), "doubleNeg": -1.5e300, "doubleTiny": .double(.leastNonzeroMagnitude),
            "doubleInf": .double(.infinity), "doubleNegInf": .double(-.infinity), "doubleZero": 0.0,
            "true": true, "false": false,
            "date": .date(Date(timeIntervalSinceReferenceDate: 752_000_123.456)),
            "dateOld": .date(Date(timeIntervalSinceReferenceDate: -1e9)),
            "data": .data(Data([0, 1, 0x7F, 0x80, 0xFF])), "emptyData": .data(Data()),
            "url": .url(try XCTUnwrap(URL(string: "https://example.org/a?b=c#d"))),
            "fileURL": .url(try XCTUnwrap(URL(string: "file:///tmp/a%20b.txt"))),
            "uuid": .uuid(Self.uuid),
            "array": [1, "two", [3, [4.5]], nil, ["k": true]], "emptyArray": [],
            "dictionary": ["nested": ["deeper": ["deepest": "x"]], "n": 1], "emptyDictionary": [:],
            "null": nil,
            "": "empty key",
        ]
    }

    private func richPayload() throws -> UserActivityPayload {
        UserActivityPayload(
            activityType: "org.example.mail.compose", title: "Draft: Lunch?",
            userInfo: try everyCase(),
            webpageURL: try XCTUnwrap(URL(string: "https://mail.example.org/compose/12")),
            expirationDate: Date(timeIntervalSinceReferenceDate: 800_000_000.5),
            keywords: ["mail", "draft", "lunch"],
            isEligibleForHandoff: false, supportsContinuationStreams: true)
    }

    private func assertDecodeThrowsMalformed(_ data: Data, _ message: String = "",
                                             file: StaticString = #filePath, line: UInt = #line) {
        let error = catchUserActivityError(file: file, line: line) { _ = try UserActivityPayload(decoding: data) }
        XCTAssertEqual(error?.isMalformedPayload, true, "\(message): \(String(describing: error))",
                       file: file, line: line)
        XCTAssertEqual(error?.code, 4642, message, file: file, line: line)
    }

    // MARK: Round trips

    /// The header alone gives what the full decode gives for the type and expiration, and
    /// refuses what the decoder refuses in the header.
    func testTheHeaderReadsTheTypeAndExpirationAlone() async throws {
        let expiration = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let payloads = [
            UserActivityPayload(activityType: "org.example.a", userInfo: ["k": .string("v")]),
            UserActivityPayload(activityType: "org.example.b", title: "T", userInfo: [:],
                                webpageURL: URL(string: "https://example.org/x"), expirationDate: expiration),
        ]
        for payload in payloads {
            let bytes = try payload.encodedBytes()
            let header = try UserActivityPayload.header(ofEncoded: bytes)
            XCTAssertEqual(header.activityType, payload.activityType)
            XCTAssertEqual(header.expirationDate, payload.expirationDate)
            XCTAssertEqual(try UserActivityPayload(decoding: bytes), try UserActivityPayload(decoding: Data(bytes)))
        }
        for bad: [UInt8] in [[], Array("BATN".utf8), Array("NOPE".utf8) + [1, 0, 1, 0x61], Array("BATN".utf8) + [1, 0xff, 1, 0x61]] {
            XCTAssertThrowsError(try UserActivityPayload.header(ofEncoded: bad)) { error in
                XCTAssertEqual((error as? UserActivityError)?.code, 4642, "\(bad): \(error)")
            }
        }
    }

    func testRoundTripOfEveryValueCase() async throws {
        let cases = try everyCase()
        for (key, value) in cases {
            let payload = UserActivityPayload(activityType: "test.one", userInfo: [key: value])
            let decoded = try UserActivityPayload(decoding: payload.encoded())
            XCTAssertEqual(decoded.userInfo[key], value, "case \(key)")
            XCTAssertEqual(decoded, payload, "case \(key)")
        }
        let all = UserActivityPayload(activityType: "test.all", userInfo: cases)
        XCTAssertEqual(try UserActivityPayload(decoding: all.encoded()), all)
    }

    func testRoundTripOfNaNKeepsNaN() async throws {
        let payload = UserActivityPayload(activityType: "test.nan", userInfo: ["x": .double(.nan)])
        let decoded = try UserActivityPayload(decoding: payload.encoded())
        XCTAssertEqual(decoded.userInfo["x"]?.doubleValue?.isNaN, true)
    }

    func testRoundTripOfEveryField() async throws {
        let payload = try richPayload()
        let decoded = try UserActivityPayload(decoding: payload.encoded())
        XCTAssertEqual(decoded, payload)
        XCTAssertEqual(decoded.title, "Draft: Lunch?")
        XCTAssertFalse(decoded.isEligibleForHandoff)
        XCTAssertTrue(decoded.supportsContinuationStreams)
        XCTAssertEqual(decoded.keywords, ["mail", "draft", "lunch"])

        let minimal = UserActivityPayload(activityType: "t")
        let decodedMinimal = try UserActivityPayload(decoding: minimal.encoded())
        XCTAssertEqual(decodedMinimal, minimal)
        XCTAssertNil(decodedMinimal.title)
        XCTAssertNil(decodedMinimal.webpageURL)
        XCTAssertNil(decodedMinimal.expirationDate)
        XCTAssertTrue(decodedMinimal.isEligibleForHandoff)

        let emptyTitle = UserActivityPayload(activityType: "t", title: "")
        XCTAssertEqual(try UserActivityPayload(decoding: emptyTitle.encoded()).title, "",
                       "an empty title is not a missing one")
    }

    func testActivityRoundTripThroughPayload() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "org.example.notes.edit", center: center)
        activity.title = "Today"
        activity.userInfo = try everyCase()
        try activity.setWebpageURL(XCTUnwrap(URL(string: "https://notes.example.org/today")))
        activity.expirationDate = Date(timeIntervalSinceReferenceDate: 900_000_000)
        activity.keywords = ["notes"]
        activity.supportsContinuationStreams = true
        let bytes = try activity.payload.encoded()
        let received = try UserActivity(payload: UserActivityPayload(decoding: bytes), center: center)
        XCTAssertEqual(received.activityType, activity.activityType)
        XCTAssertEqual(received.title, activity.title)
        XCTAssertEqual(received.userInfo, activity.userInfo)
        XCTAssertEqual(received.webpageURL, activity.webpageURL)
        XCTAssertEqual(received.expirationDate, activity.expirationDate)
        XCTAssertEqual(received.keywords, activity.keywords)
        XCTAssertEqual(received.isEligibleForHandoff, activity.isEligibleForHandoff)
        XCTAssertEqual(received.supportsContinuationStreams, true)
        XCTAssertEqual(received.payload, activity.payload)
    }

    func testActivityFromPayloadWithBadWebpageURLThrows() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let payload = UserActivityPayload(activityType: "t", webpageURL: try XCTUnwrap(URL(string: "ftp://example.org")))
        let error = catchUserActivityError { _ = try UserActivity(payload: payload, center: center) }
        XCTAssertEqual(error?.isInvalidWebpageURL, true)
    }

    func testEncodingIsDeterministicAndPinned() async throws {
        var first: [String: UserInfoValue] = [:]
        var second: [String: UserInfoValue] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for key in keys { first[key] = .string(key) }
        for key in keys.reversed() { second[key] = .string(key) }
        let a = try UserActivityPayload(activityType: "t", userInfo: first, keywords: ["b", "a", "c"]).encoded()
        let b = try UserActivityPayload(activityType: "t", userInfo: second, keywords: ["c", "b", "a"]).encoded()
        XCTAssertEqual(a, b, "equal payloads encode to equal bytes")

        // Format version 1, pinned byte for byte.
        let pinned = try UserActivityPayload(activityType: "a.b", userInfo: ["k": 1]).encoded()
        XCTAssertEqual(Array(pinned), [
            0x42, 0x41, 0x54, 0x4E, 0x01,   // "BATN" v1
            0x01,                           // flags: eligible
            0x03, 0x61, 0x2E, 0x62,         // type "a.b"
            0x00,                           // no keywords
            0x05,                           // userInfo length
            0x01, 0x01, 0x6B, 0x03, 0x02,   // 1 entry: "k" = int 1 (zigzag 2)
        ])
    }

    // MARK: requiredUserInfoKeys

    func testPayloadFiltersByRequiredUserInfoKeys() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.required", center: center)
        activity.userInfo = ["to": "bob@example.org", "cursor": 12, "draftCache": .data(Data(count: 100))]
        XCTAssertEqual(activity.payload.userInfo, activity.userInfo, "nil sends every key")

        activity.requiredUserInfoKeys = ["to", "cursor", "absent"]
        XCTAssertEqual(activity.payload.userInfo, ["to": "bob@example.org", "cursor": 12])
        XCTAssertEqual(activity.userInfo.count, 3, "the activity itself keeps every key")

        let decoded = try UserActivityPayload(decoding: activity.payload.encoded())
        XCTAssertEqual(decoded.userInfo, ["to": "bob@example.org", "cursor": 12])

        activity.requiredUserInfoKeys = []
        XCTAssertEqual(activity.payload.userInfo, [:])
    }

    func testRequiredKeysCanBringPayloadUnderTheLimit() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.required", center: center)
        activity.userInfo = ["small": 1, "huge": .data(Data(count: 100_000))]
        XCTAssertThrowsError(try activity.payload.encoded())
        activity.requiredUserInfoKeys = ["small"]
        XCTAssertNoThrow(try activity.payload.encoded())
    }

    // MARK: Size limit

    func testUserInfoOverLimitThrowsAtEncode() async throws {
        let limit = UserActivity.maximumUserInfoSize
        XCTAssertEqual(limit, 65_536)
        // count(1) + key "k"(2) + tag(1) + length varint(3) + bytes
        let atLimit = UserActivityPayload(activityType: "t", userInfo: ["k": .data(Data(repeating: 7, count: limit - 7))])
        XCTAssertEqual(atLimit.encodedUserInfoSize, limit)
        let encoded = try atLimit.encoded()
        let decoded = try UserActivityPayload(decoding: encoded)
        XCTAssertEqual(decoded.userInfo["k"]?.dataValue?.count, limit - 7, "never truncated")
        XCTAssertEqual(decoded, atLimit)

        let overByOne = UserActivityPayload(activityType: "t", userInfo: ["k": .data(Data(repeating: 7, count: limit - 6))])
        XCTAssertEqual(overByOne.encodedUserInfoSize, limit + 1)
        XCTAssertThrowsUserActivityError(.userInfoTooLarge(size: limit + 1, limit: limit)) {
            _ = try overByOne.encoded()
        }

        let wayOver = UserActivityPayload(
            activityType: "t",
            userInfo: Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("key\($0)", UserInfoValue.string(String(repeating: "x", count: 40))) }))
        let size = wayOver.encodedUserInfoSize
        XCTAssertGreaterThan(size, limit)
        let error = catchUserActivityError { _ = try wayOver.encoded() }
        XCTAssertEqual(error, .userInfoTooLarge(size: size, limit: limit))
        XCTAssertEqual(error?.code, 4611)
    }

    func testActivityPayloadOverLimitThrowsAtEncode() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.big", center: center)
        activity.userInfo = ["blob": .data(Data(count: 70_000))]
        let payload = activity.payload
        XCTAssertEqual(payload.userInfo["blob"]?.dataValue?.count, 70_000, "the payload value is not truncated")
        let error = catchUserActivityError { _ = try payload.encoded() }
        guard case .userInfoTooLarge(let size, let limit)? = error else {
            return XCTFail("expected userInfoTooLarge, got \(String(describing: error))")
        }
        XCTAssertEqual(limit, UserActivity.maximumUserInfoSize)
        XCTAssertEqual(size, payload.encodedUserInfoSize)
        XCTAssertGreaterThan(size, 70_000)
    }

    func testDecodingDeclaredUserInfoOverLimitThrowsUserInfoTooLarge() async throws {
        let limit = UserActivity.maximumUserInfoSize
        let info = [UInt8](repeating: 0, count: limit + 1)
        let data = PayloadBytes.payload(info: info)
        XCTAssertLessThanOrEqual(data.count, UserActivityPayload.maximumEncodedSize)
        XCTAssertThrowsUserActivityError(.userInfoTooLarge(size: limit + 1, limit: limit)) {
            _ = try UserActivityPayload(decoding: data)
        }
    }

    func testFieldOverMaximumLengthIsRejectedBothWays() async throws {
        let long = String(repeating: "t", count: UserActivityPayload.maximumFieldLength + 1)
        let error = catchUserActivityError { _ = try UserActivityPayload(activityType: long).encoded() }
        XCTAssertEqual(error?.code, 4643, "an over-long field is an invalid activity: \(String(describing: error))")
        XCTAssertNoThrow(try UserActivityPayload(
            activityType: String(repeating: "t", count: UserActivityPayload.maximumFieldLength)).encoded())

        assertDecodeThrowsMalformed(PayloadBytes.payload(type: Array(long.utf8)), "long type")
        assertDecodeThrowsMalformed(PayloadBytes.payload(title: Array(long.utf8)), "long title")
        assertDecodeThrowsMalformed(PayloadBytes.payload(keywords: [Array(long.utf8)]), "long keyword")
    }

    // MARK: Malformed input

    func testHandBuiltPayloadDecodes() async throws {
        // The builder itself must be right, or the malformed cases below prove nothing.
        let data = PayloadBytes.payload(title: Array("T".utf8), url: Array("https://example.org/x".utf8),
                                        keywords: [Array("kw".utf8)],
                                        info: PayloadBytes.info(value: [Tag.string, 2, 0x68, 0x69]))
        let payload = try UserActivityPayload(decoding: data)
        XCTAssertEqual(payload.activityType, "test.type")
        XCTAssertEqual(payload.title, "T")
        XCTAssertEqual(payload.webpageURL?.absoluteString, "https://example.org/x")
        XCTAssertEqual(payload.keywords, ["kw"])
        XCTAssertEqual(payload.userInfo, ["k": "hi"])
    }

    func testWrongMagic() async throws {
        assertDecodeThrowsMalformed(PayloadBytes.payload(magic: Array("BATX".utf8)), "BATX")
        assertDecodeThrowsMalformed(PayloadBytes.payload(magic: Array("batn".utf8)), "batn")
        assertDecodeThrowsMalformed(Data("{\"type\": \"json\"}".utf8), "json")
        assertDecodeThrowsMalformed(Data(), "empty")
    }

    func testBadVersion() async throws {
        for version: UInt8 in [0, 2, 0x7F, 0xFF] {
            assertDecodeThrowsMalformed(PayloadBytes.payload(version: version), "version \(version)")
        }
    }

    func testUnknownFlags() async throws {
        for flags: UInt8 in [0x20, 0x40, 0x80, 0xFF] {
            assertDecodeThrowsMalformed(PayloadBytes.payload(flags: flags), "flags \(flags)")
        }
    }

    func testEmptyActivityType() async throws {
        assertDecodeThrowsMalformed(PayloadBytes.payload(type: []), "empty type")
    }

    func testTruncatedAtEveryPrefixLength() async throws {
        let valid = Array(try richPayload().encoded())
        XCTAssertNoThrow(try UserActivityPayload(decoding: Data(valid)))
        for length in 0..<valid.count {
            assertDecodeThrowsMalformed(Data(valid[0..<length]), "prefix of \(length) of \(valid.count) bytes")
        }
    }

    func testTrailingBytes() async throws {
        let valid = try richPayload().encoded()
        for extra: [UInt8] in [[0], [0xFF], [1, 2, 3], Array(valid)] {
            assertDecodeThrowsMalformed(valid + extra, "\(extra.count) trailing bytes")
        }
    }

    func testUserInfoLengthMismatch() async throws {
        let info = PayloadBytes.info(value: [Tag.int, 2])
        assertDecodeThrowsMalformed(
            PayloadBytes.payload(info: info + [0], infoLength: UInt64(info.count + 1)), "length too long")
        // The declared length is one short of what the body reads.
        assertDecodeThrowsMalformed(
            PayloadBytes.payload(info: info + [0], infoLength: UInt64(info.count - 1)), "length too short")
    }

    func testInvalidUTF8() async throws {
        let invalid: [[UInt8]] = [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0x61, 0x80]]
        for bytes in invalid {
            assertDecodeThrowsMalformed(PayloadBytes.payload(type: bytes), "type \(bytes)")
            assertDecodeThrowsMalformed(PayloadBytes.payload(title: bytes), "title \(bytes)")
            assertDecodeThrowsMalformed(PayloadBytes.payload(keywords: [bytes]), "keyword \(bytes)")
            assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(key: bytes, value: [Tag.null])),
                                        "key \(bytes)")
            var value = PayloadBytes()
            value.byte(Tag.string)
            value.string(bytes)
            assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: value.bytes)),
                                        "string value \(bytes)")
        }
    }

    func testUnknownValueTag() async throws {
        for tag: UInt8 in [12, 13, 0x80, 0xFF] {
            assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: [tag])), "tag \(tag)")
        }
    }

    private func nestedArrays(_ levels: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<(levels - 1) { bytes += [Tag.array, 1] }
        return bytes + [Tag.array, 0]
    }

    private func nestedDictionaries(_ levels: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<(levels - 1) { bytes += [Tag.dictionary, 1, 1, 0x6B] }
        return bytes + [Tag.dictionary, 0]
    }

    func testNestingDeeperThan32IsRejected() async throws {
        for levels in [33, 40, 200, 5_000] {
            assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: nestedArrays(levels))),
                                        "\(levels) nested arrays")
            assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: nestedDictionaries(levels))),
                                        "\(levels) nested dictionaries")
        }
        // Shallower nesting is fine.
        for levels in [1, 8, 31] {
            XCTAssertNoThrow(try UserActivityPayload(
                decoding: PayloadBytes.payload(info: PayloadBytes.info(value: nestedArrays(levels)))), "\(levels)")
            XCTAssertNoThrow(try UserActivityPayload(
                decoding: PayloadBytes.payload(info: PayloadBytes.info(value: nestedDictionaries(levels)))), "\(levels)")
        }
    }

    func testHugeCounts() async throws {
        let huge: [UInt64] = [1 << 20, 1 << 32, UInt64(Int.max), UInt64.max]
        for count in huge {
            var keyword = PayloadBytes()
            keyword.raw(Array("BATN".utf8) + [1, 1])
            keyword.string("t")
            keyword.varint(count)   // keyword count
            assertDecodeThrowsMalformed(Data(keyword.bytes), "keyword count \(count)")

            var info = PayloadBytes()
            info.varint(count)      // entry count
            assertDecodeThrowsMalformed(PayloadBytes.payload(info: info.bytes), "entry count \(count)")

            for tag in [Tag.array, Tag.dictionary, Tag.data, Tag.string, Tag.url] {
                var value = PayloadBytes()
                value.byte(tag)
                value.varint(count)
                assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: value.bytes)),
                                            "tag \(tag) count \(count)")
            }

            var length = PayloadBytes()
            length.raw(Array("BATN".utf8) + [1, 1])
            length.varint(count)    // type length
            assertDecodeThrowsMalformed(Data(length.bytes + [0x61]), "type length \(count)")

            assertDecodeThrowsMalformed(PayloadBytes.payload(info: [0], infoLength: count), "info length \(count)")
        }
    }

    func testOverlongVarints() async throws {
        let overlong: [[UInt8]] = [
            [UInt8](repeating: 0xFF, count: 10) + [0x01],
            [UInt8](repeating: 0x80, count: 11) + [0x00],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],   // over 64 bits
            [UInt8](repeating: 0xFF, count: 40),
        ]
        for varint in overlong {
            assertDecodeThrowsMalformed(
                PayloadBytes.payload(info: PayloadBytes.info(value: [Tag.int] + varint)), "int \(varint)")
            var data = Array("BATN".utf8) + [1, 1]
            data += varint
            assertDecodeThrowsMalformed(Data(data), "type length \(varint)")
        }
        // The largest 64-bit varint is fine: zigzag of Int.min.
        let intMin: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        let payload = try UserActivityPayload(decoding: PayloadBytes.payload(info: PayloadBytes.info(value: [Tag.int] + intMin)))
        XCTAssertEqual(payload.userInfo["k"], .int(Int.min))
    }

    func testDuplicateKeys() async throws {
        var info = PayloadBytes()
        info.varint(2)
        info.string("k"); info.raw([Tag.int, 2])
        info.string("k"); info.raw([Tag.int, 4])
        assertDecodeThrowsMalformed(PayloadBytes.payload(info: info.bytes), "duplicate top-level key")

        var nested = PayloadBytes()
        nested.byte(Tag.dictionary)
        nested.varint(2)
        nested.string("x"); nested.byte(Tag.null)
        nested.string("x"); nested.byte(Tag.trueValue)
        assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: nested.bytes)),
                                    "duplicate nested key")

        // Equal keys after Unicode normalisation count as duplicates too: Swift strings compare
        // canonically, so "é" precomposed and decomposed are one dictionary key.
        var canonical = PayloadBytes()
        canonical.varint(2)
        canonical.string([0xC3, 0xA9]); canonical.byte(Tag.null)
        canonical.string([0x65, 0xCC, 0x81]); canonical.byte(Tag.null)
        assertDecodeThrowsMalformed(PayloadBytes.payload(info: canonical.bytes), "canonically equal keys")
    }

    func testInvalidWebpageURL() async throws {
        for text in ["ftp://example.org/f", "file:///etc/passwd", "javascript:alert(1)", "mailto:a@b.c",
                     "/relative", "example.org", "http:///nohost", ""] {
            assertDecodeThrowsMalformed(PayloadBytes.payload(url: Array(text.utf8)), "url \(text)")
        }
        XCTAssertNoThrow(try UserActivityPayload(decoding: PayloadBytes.payload(url: Array("http://example.org".utf8))))

        let bad = UserActivityPayload(activityType: "t", webpageURL: try XCTUnwrap(URL(string: "ftp://example.org")))
        let error = catchUserActivityError { _ = try bad.encoded() }
        XCTAssertEqual(error?.isInvalidWebpageURL, true, "the encoder refuses it too")
    }

    /// A webpage URL whose text fits the 4 KiB field limit but that `URL` percent-encodes past
    /// it ("ä" becomes "%C3%A4") was decoded, and the payload then could not be encoded again
    /// (found by Fuzz/FuzzPayload). It is malformed; one that still fits encoded is not.
    func testWebpageURLOverTheLimitOnceEncodedIsRejected() async throws {
        let growing = Array(("http://example.org/" + String(repeating: "ä", count: 2000)).utf8)
        XCTAssertLessThanOrEqual(growing.count, UserActivityPayload.maximumFieldLength)
        assertDecodeThrowsMalformed(PayloadBytes.payload(url: growing), "a URL of 12 KiB once encoded")

        let fitting = Array(("http://example.org/" + String(repeating: "ä", count: 600)).utf8)
        let payload = try UserActivityPayload(decoding: PayloadBytes.payload(url: fitting))
        XCTAssertEqual(try UserActivityPayload(decoding: payload.encoded()), payload, "it encodes again")
    }

    func testShortFixedWidthValues() async throws {
        assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: [Tag.double, 0, 0, 0])), "short double")
        assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: [Tag.date, 0])), "short date")
        assertDecodeThrowsMalformed(PayloadBytes.payload(info: PayloadBytes.info(value: [Tag.uuid] + [UInt8](repeating: 1, count: 15))),
                                    "short uuid")
        var expiration = Array("BATN".utf8) + [1, 0b1_0001]
        expiration += [1, 0x74, 0, 0, 0]   // type "t", then 3 of the 8 expiration bytes
        assertDecodeThrowsMalformed(Data(expiration), "short expiration")
    }

    func testOversizedInputIsRejected() async throws {
        let data = Data(repeating: 0, count: UserActivityPayload.maximumEncodedSize + 1)
        var prefixed = PayloadBytes.payload()
        prefixed.append(Data(repeating: 0, count: UserActivityPayload.maximumEncodedSize))
        assertDecodeThrowsMalformed(data, "zeros")
        assertDecodeThrowsMalformed(prefixed, "valid header, too long")
    }

    // MARK: Round-trip promise: whatever encoded() writes, init(decoding:) reads back

    /// Either `encoded()` refuses `payload` with a ``UserActivityError`` (the sender learns at
    /// once), or the bytes it writes decode back to `payload`. What must never happen is bytes
    /// that the encoder writes and the decoder rejects: a handoff that fails only on the
    /// receiving device.
    private func assertEncodedPayloadDecodes(_ payload: UserActivityPayload, _ message: String,
                                             file: StaticString = #filePath, line: UInt = #line) {
        let bytes: Data
        do {
            bytes = try payload.encoded()
        } catch is UserActivityError {
            return   // refused at encode: fine
        } catch {
            return XCTFail("unexpected error \(error)", file: file, line: line)
        }
        do {
            let decoded = try UserActivityPayload(decoding: bytes)
            XCTAssertEqual(decoded, payload, message, file: file, line: line)
        } catch {
            XCTFail("\(message): encoded() wrote \(bytes.count) bytes that init(decoding:) rejects: \(error)",
                    file: file, line: line)
        }
    }

    /// What the decoder refuses, the encoder refuses first: nesting deeper than 32.
    func testEncoderRefusesNestingTheDecoderRejects() async throws {
        var value: UserInfoValue = "leaf"
        for _ in 0..<40 { value = [value] }
        let error = catchUserActivityError {
            _ = try UserActivityPayload(activityType: "t", userInfo: ["deep": value]).encoded()
        }
        XCTAssertEqual(error?.code, 4641, "nesting 40 deep is invalid userInfo: \(String(describing: error))")

        var deepest: UserInfoValue = "leaf"
        for _ in 0..<(UserActivityPayload.maximumNesting - 1) { deepest = [deepest] }
        assertEncodedPayloadDecodes(UserActivityPayload(activityType: "t", userInfo: ["deep": deepest]),
                                    "the deepest nesting the decoder reads")
    }

    /// The encoder refuses more than `maximumEncodedSize` bytes in all, not just a large userInfo.
    func testEncoderRefusesMoreThanTheDecoderAccepts() async throws {
        let manyKeywords = Set((0..<21).map { String(repeating: "k", count: 4_000) + "\($0)" })
        let keywordsError = catchUserActivityError {
            _ = try UserActivityPayload(activityType: "t", keywords: manyKeywords).encoded()
        }
        XCTAssertEqual(keywordsError?.code, 4643, "21 keywords of 4 KB: \(String(describing: keywordsError))")

        let limit = UserActivity.maximumUserInfoSize
        let long = String(repeating: "f", count: UserActivityPayload.maximumFieldLength - 1)
        let full = UserActivityPayload(
            activityType: "t" + long, title: "t" + long,
            userInfo: ["k": .data(Data(repeating: 7, count: limit - 7))],
            keywords: ["a" + long, "b" + long, "c" + long])
        let fullError = catchUserActivityError { _ = try full.encoded() }
        XCTAssertEqual(fullError?.code, 4643, "full userInfo plus long fields: \(String(describing: fullError))")

        let fits = UserActivityPayload(
            activityType: "t" + long, title: "t" + long,
            userInfo: ["k": .data(Data(repeating: 7, count: limit - 7))])
        assertEncodedPayloadDecodes(fits, "a full userInfo with a long type and title still fits")
    }

    func testEncoderRefusesAnEmptyActivityType() async throws {
        let error = catchUserActivityError { _ = try UserActivityPayload(activityType: "").encoded() }
        XCTAssertEqual(error, .invalidActivity("the activity type is empty"))
    }

    // MARK: Fuzz

    private func decodeNeverTraps(_ data: Data, _ label: @autoclosure () -> String) -> Bool {
        do {
            let payload = try UserActivityPayload(decoding: data)
            // Whatever decodes must encode again, and decoding that must be stable.
            do {
                let again = try payload.encoded()
                let reread = try UserActivityPayload(decoding: again)
                XCTAssertEqual(try reread.encoded(), again, "re-encoding is stable: \(label())")
            } catch {
                XCTFail("a decoded payload does not re-encode (\(error)): \(label())")
            }
            return true
        } catch let error as UserActivityError {
            switch error {
            case .malformedPayload, .userInfoTooLarge: return false
            default:
                XCTFail("unexpected error \(error): \(label())")
                return false
            }
        } catch {
            XCTFail("unexpected error type \(error): \(label())")
            return false
        }
    }

    func testFuzzRandomBytes() async throws {
        var generator = SplitMix64(seed: 0xBA70_2024)
        let header = Array("BATN".utf8) + [1]
        var decoded = 0
        for iteration in 0..<20_000 {
            let length = Int.random(in: 0...256, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Half of them start like a payload, to get past the magic and version.
            if iteration % 2 == 0 {
                bytes = header + [UInt8.random(in: 0...0x1F, using: &generator)] + bytes
            }
            if decodeNeverTraps(Data(bytes), "random #\(iteration): \(bytes)") { decoded += 1 }
        }
        // Also hand-shaped random payloads: a header and a random userInfo body of the right length.
        for iteration in 0..<2_000 {
            let length = Int.random(in: 0...64, using: &generator)
            let info = (0..<length).map { _ in UInt8.random(in: 0...15, using: &generator) }
            let data = PayloadBytes.payload(info: info)
            if decodeNeverTraps(data, "shaped #\(iteration): \(info)") { decoded += 1 }
        }
        XCTAssertGreaterThan(decoded, 0, "some shaped inputs decode, so the loop reaches deep code")
    }

    func testFuzzMutationsOfValidPayload() async throws {
        var generator = SplitMix64(seed: 0x5EED_0F_BA70)
        let valid = Array(try richPayload().encoded())
        let small = Array(try UserActivityPayload(
            activityType: "t", title: "x",
            userInfo: ["a": [1, "b", ["c": .data(Data([1, 2]))]], "u": .uuid(Self.uuid), "d": .date(Date(timeIntervalSinceReferenceDate: 1))],
            keywords: ["k"]).encoded())
        var decoded = 0
        for iteration in 0..<20_000 {
            var bytes = iteration % 2 == 0 ? valid : small
            let mutations = Int.random(in: 1...4, using: &generator)
            for _ in 0..<mutations {
                let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<7, using: &generator) {
                case 0 where !bytes.isEmpty:
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
                case 1 where !bytes.isEmpty:
                    bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 2:
                    bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                case 3 where !bytes.isEmpty:
                    bytes.remove(at: position)
                case 4:
                    bytes.removeLast(Int.random(in: 0...min(bytes.count, 8), using: &generator))
                case 5 where !bytes.isEmpty:
                    let end = min(bytes.count, position + Int.random(in: 1...16, using: &generator))
                    bytes.insert(contentsOf: bytes[position..<end], at: position)
                case 6 where !bytes.isEmpty:
                    bytes[position] = [0x00, 0x7F, 0x80, 0xFF][Int.random(in: 0..<4, using: &generator)]
                default:
                    break
                }
            }
            if decodeNeverTraps(Data(bytes), "mutation #\(iteration)") { decoded += 1 }
        }
        XCTAssertGreaterThan(decoded, 0, "some mutations still decode")
    }
}
