import BatonGLib
import BatonPeer
import XCTest

/// The clipboard's messages survive their frames, and every field of a hostile one is
/// refused with an error naming it.
final class ClipboardMessageTests: XCTestCase {
    private let token = String(repeating: "0123456789abcdef", count: 2)

    private func decode(_ message: PeerMessage) throws -> PeerMessage {
        let frame = message.frame
        return try PeerMessage(kind: frame[3], body: Array(frame.dropFirst(PeerFrame.headerSize)))
    }

    private func decode(_ kind: PeerMessage.Kind, _ record: [String: BusValue]) throws -> PeerMessage {
        try PeerMessage(kind: kind.rawValue, body: BusValue.serialize(record: record))
    }

    func testTheMessagesSurviveTheirFrames() throws {
        let types = (0..<PeerClipboardOffer.maximumTypes).map { "application/x-type-\($0)" }
        let messages: [PeerMessage] = [
            .clipboardOffer(PeerClipboardOffer(token: token, items: [
                .init(type: "text/plain;charset=utf-8", size: 1024), .init(type: "image/png"), .init(type: "text/html"),
            ], lifetime: 120)),
            .clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: types.map { .init(type: $0) }, lifetime: 1)),
            .clipboardWithdraw(token: token),
            .clipboardFetch(request: 4, token: token, type: "image/png"),
            .clipboardData(request: 4, .part(offset: 0, total: 3, bytes: [1, 2, 3])),
            .clipboardData(request: 5, .part(offset: 0, total: 0, bytes: [])),
            .clipboardData(request: 6, .failed(.expired)),
        ] + PeerClipboardFailure.allCases.map { .clipboardData(request: 7, .failed($0)) }
        for message in messages {
            XCTAssertEqual(try decode(message), message)
            XCTAssertFalse(message.isAllowedBeforePairing, "\(message) is for paired devices only")
        }
        XCTAssertTrue(PeerProtocol.capabilities.contains(PeerCapability.clipboard))
    }

    func testContentIsSentWindowByWindowInPartsThatEachFitAFrame() throws {
        let content = (0..<(5 << 20) + 1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var joined: [UInt8] = []
        var windows = 0
        while joined.count < content.count {
            let windowStart = UInt32(joined.count)
            let parts = PeerClipboardAnswer.parts(of: content, from: joined.count)
            XCTAssertEqual(parts.count, min(6, Int((content.count - joined.count + PeerClipboardOffer.maximumPartSize - 1) / PeerClipboardOffer.maximumPartSize)),
                           "a window of 1 MiB is six parts of at most 192 KiB")
            windows += 1
            for (index, part) in parts.enumerated() {
                let frame = PeerMessage.clipboardData(request: 1, part).frame
                XCTAssertLessThanOrEqual(frame.count - PeerFrame.headerSize, PeerFrame.maximumBodySize)
                guard case .clipboardData(_, .part(let offset, let total, let bytes)) = try decode(.clipboardData(request: 1, part)) else {
                    return XCTFail("a part reads back as a part")
                }
                XCTAssertEqual(Int(offset), joined.count)
                XCTAssertEqual(Int(total), content.count)
                XCTAssertEqual(part.endsWindow(from: windowStart), index == parts.count - 1, "only a window's last part ends it")
                joined += bytes
            }
        }
        XCTAssertEqual(windows, 6)
        XCTAssertTrue(joined == content, "the windows join into the content")
        XCTAssertEqual(PeerClipboardAnswer.parts(of: content, from: content.count), [], "nothing past the end")
        XCTAssertEqual(PeerClipboardAnswer.parts(of: []), [.part(offset: 0, total: 0, bytes: [])], "an empty copy is one empty part")

        let fetch = PeerMessage.clipboardFetch(request: 7, token: PeerClipboardOffer.makeToken(), type: "image/png", offset: 1 << 20)
        XCTAssertEqual(try decode(fetch), fetch, "a fetch says from where")
        var record: [String: BusValue] = ["request": .uint32(7), "token": .string(PeerClipboardOffer.makeToken()), "type": .string("image/png")]
        guard case .clipboardFetch(_, _, _, let offset) = try decode(.clipboardFetch, record) else {
            return XCTFail("a fetch without an offset reads")
        }
        XCTAssertEqual(offset, 0, "from the start")
        record["offset"] = .uint32(UInt32(PeerClipboardOffer.maximumDataSize))
        XCTAssertThrowsError(try decode(.clipboardFetch, record),
                             "an offset past the largest content")
    }

    func testHostileAnnouncementsAreRefused() throws {
        func offer(token: String? = nil, types: BusValue? = nil, lifetime: BusValue = .uint32(60)) -> [String: BusValue] {
            ["token": .string(token ?? self.token), "lifetime": lifetime,
             "types": types ?? .dictionaries([["type": .string("text/plain")]])]
        }
        let refusals: [([String: BusValue], String)] = [
            (offer(token: "ABCDEF" + String(token.dropFirst(6))), "\"token\""),
            (offer(token: String(token.dropLast())), "\"token\""),
            (offer(token: "../" + String(token.dropFirst(3))), "\"token\""),
            (offer(lifetime: .uint32(121)), "\"lifetime\""),
            (offer(lifetime: .uint32(0)), "\"lifetime\""),
            (offer(lifetime: .string("60")), "\"lifetime\""),
            (offer(types: .dictionaries([])), "\"types\""),
            (offer(types: .strings(["text/plain"])), "\"types\""),
            (offer(types: .dictionaries(Array(repeating: ["type": .string("text/plain")], count: 17))), "\"types\""),
            (offer(types: .dictionaries([["type": .string("UTF8_STRING")]])), "each type"),
            (offer(types: .dictionaries([["type": .string("text/plain\n")]])), "each type"),
            (offer(types: .dictionaries([["type": .string("text/" + String(repeating: "x", count: 123))]])), "each type"),
            (offer(types: .dictionaries([["type": .string("text/plain;charset")]])), "each type"),
            (offer(types: .dictionaries([["type": .string("text/plain")], ["type": .string("text/plain")]])), "twice"),
            (offer(types: .dictionaries([["type": .string("text/plain"), "size": .int32(4)]])), "\"size\""),
        ]
        for (record, field) in refusals {
            XCTAssertThrowsError(try decode(.clipboardOffer, record), "\(record)") { error in
                XCTAssertTrue("\(error)".contains("clipboardOffer message") && "\(error)".contains(field), "\(error)")
            }
        }
        var missing = offer()
        missing["token"] = nil
        XCTAssertThrowsError(try decode(.clipboardOffer, missing))
    }

    func testHostileFetchesWithdrawalsAndAnswersAreRefused() throws {
        XCTAssertThrowsError(try decode(.clipboardWithdraw, ["token": .string("x")])) {
            XCTAssertTrue("\($0)".contains("\"token\" must be 32 lowercase hex digits"), "\($0)")
        }
        XCTAssertThrowsError(try decode(.clipboardFetch, ["request": .uint32(1), "token": .string(token), "type": .string("TARGETS")])) {
            XCTAssertTrue("\($0)".contains("\"type\""), "\($0)")
        }
        XCTAssertThrowsError(try decode(.clipboardFetch, ["request": .uint32(1), "token": .string(token)]))
        XCTAssertThrowsError(try decode(.clipboardFetch, ["token": .string(token), "type": .string("text/plain")]))
        let answers: [[String: BusValue]] = [
            ["request": .uint32(1), "failure": .uint32(0)],
            ["request": .uint32(1), "failure": .uint32(99)],
            ["request": .uint32(1), "offset": .uint32(0), "total": .uint32(UInt32(PeerClipboardOffer.maximumDataSize) + 1),
             "bytes": .bytes([1])],
            ["request": .uint32(1), "offset": .uint32(3), "total": .uint32(4), "bytes": .bytes([1, 2])],
            ["request": .uint32(1), "offset": .uint32(UInt32.max), "total": .uint32(4), "bytes": .bytes([1])],
            ["request": .uint32(1), "offset": .uint32(0), "total": .uint32(4), "bytes": .bytes([])],
            ["request": .uint32(1), "offset": .uint32(0), "total": .uint32(0), "bytes": .bytes([1])],
            ["request": .uint32(1), "offset": .uint32(0), "total": .uint32(UInt32(PeerClipboardOffer.maximumPartSize) + 1),
             "bytes": .bytes(Array(repeating: 1, count: PeerClipboardOffer.maximumPartSize + 1))],
            ["request": .uint32(1), "bytes": .bytes([1])],
            ["offset": .uint32(0), "total": .uint32(1), "bytes": .bytes([1])],
        ]
        for record in answers {
            XCTAssertThrowsError(try decode(.clipboardData, record), "\(record)")
        }
    }

    func testTypesKeepTheirParametersAndTokensAreRandom() {
        for type in ["text/plain", "text/plain;charset=utf-8", "text/plain; charset=utf-8", "image/png", "application/x-kde-cutselection"] {
            XCTAssertTrue(PeerClipboardOffer.isType(type), type)
        }
        for type in ["", "STRING", "text/", "text/plain;", "text/plain;charset=utf 8", "text/plain\u{202e}", "a/b/c"] {
            XCTAssertFalse(PeerClipboardOffer.isType(type), type)
        }
        let tokens = Set((0..<100).map { _ in PeerClipboardOffer.makeToken() })
        XCTAssertEqual(tokens.count, 100)
        XCTAssertTrue(tokens.allSatisfy(PeerClipboardOffer.isToken))
    }
}
