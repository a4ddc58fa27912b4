import Baton
import BatonBus
import BatonGLib
import BatonPeer
import XCTest

final class PeerFrameTests: XCTestCase {
    func testMessagesSurviveTheirFrames() throws {
        let summary = ActivitySummary(activityType: "org.example.mail.compose", title: "Draft: Hello",
                                      webpageURL: URL(string: "https://mail.example.org/drafts/1"),
                                      expirationDate: Date(timeIntervalSince1970: 2_000_000_000))
        let messages: [PeerMessage] = [
            .hello(PeerHello(deviceID: "0123abcd", name: "laptop", port: 48_100)),
            .pairRequest(commitment: PairingNonce.commitment(to: PairingNonce.make())),
            .pairAccept(nonce: PairingNonce.make()), .pairReveal(nonce: PairingNonce.make()), .pairConfirm, .pairCancel(reason: "wrong code"), .unpair,
            .offers([PeerOffer(id: "abc123", summary: summary, appID: "org.example.MailComposer", teamID: "TEAM")]),
            .offers([]),
            .fetch(request: 7, activityID: "abc123"), .payload(request: 7, bytes: Array(0..<200).map(UInt8.init)),
            .payload(request: 8, bytes: [1, 2, 3],
                     document: PeerDocument(name: "Report – final.md", size: 1234, sha256: Array(repeating: 0xab, count: 32),
                                            mimeType: "text/markdown")),
            .failure(request: 7, .userInfoTooLarge(size: 100_000, limit: 65_536)),
            .failure(request: 8, .remoteApplicationTimedOut("slow")),
            .continued(activityID: "abc123"), .ping, .pong,
            .renamed(name: "Study laptop"), .reachBack(request: 9), .reachBackResult(request: 9, problem: ""),
            .reachBackResult(request: 10, problem: "cannot dial 10.0.0.2:48100: Connection refused"),
            .streamOpen(stream: 3, activityID: "abc123"), .streamOpened(stream: 3),
            .streamData(stream: 3, bytes: Array(0..<255).map(UInt8.init)),
            .streamData(stream: 0xfedc_ba98, bytes: Array(repeating: 7, count: PeerMessage.maximumStreamChunk)),
            .streamCredit(stream: 3, count: 1 << 19), .streamEnd(stream: 3), .streamClose(stream: 3, reason: "done"),
        ]
        var reader = FrameReader()
        let stream = messages.flatMap(\.frame)
        // Fed in awkward pieces, as a socket delivers them.
        var decoded: [PeerMessage] = []
        for chunk in stride(from: 0, to: stream.count, by: 5) {
            stream[chunk..<min(chunk + 5, stream.count)].withUnsafeBytes { reader.append($0) }
            while let frame = try reader.next() {
                decoded.append(try PeerMessage(kind: frame.kind, body: frame.body))
            }
        }
        XCTAssertEqual(decoded, messages)
        XCTAssertEqual(reader.pendingCount, 0)

        // As a link reads them: each body in place, in pieces of a TLS record's size.
        var inPlace: [PeerMessage] = []
        var dropped: [PeerProtocolError] = []
        for chunk in stride(from: 0, to: stream.count, by: 16 << 10) {
            stream[chunk..<min(chunk + (16 << 10), stream.count)].withUnsafeBytes { reader.append($0) }
            while let message = try reader.next({ try PeerMessage(kind: $0, bodyBytes: $1, droppedOffers: &dropped) }) {
                inPlace.append(message)
            }
        }
        XCTAssertEqual(inPlace, messages)
        XCTAssertEqual(reader.pendingCount, 0)
    }

    func testGarbageIsAProtocolError() throws {
        var reader = FrameReader()
        Array("GET / HTTP/1.1\r\n".utf8).withUnsafeBytes { reader.append($0) }
        XCTAssertThrowsError(try reader.next())

        var wrongVersion = FrameReader()
        var frame = PeerMessage.ping.frame
        frame[2] = 9
        frame.withUnsafeBytes { wrongVersion.append($0) }
        XCTAssertThrowsError(try wrongVersion.next()) { error in
            XCTAssertTrue("\(error)".contains("version 9"), "\(error)")
        }

        var oversized = FrameReader()
        [0x42, 0x54, 1, 11, 0x7f, 0, 0, 0].withUnsafeBytes { oversized.append($0) }
        XCTAssertThrowsError(try oversized.next())
    }

    func testTruncatedFrameWaitsForMore() throws {
        var reader = FrameReader()
        let frame = PeerMessage.continued(activityID: "abc").frame
        frame.dropLast(3).withUnsafeBytes { reader.append($0) }
        XCTAssertNil(try reader.next())
        frame.suffix(3).withUnsafeBytes { reader.append($0) }
        XCTAssertEqual(try reader.next().map { try PeerMessage(kind: $0.kind, body: $0.body) }, .continued(activityID: "abc"))
    }

    func testAnUnknownKindIsReadAsUnknownNotAnError() throws {
        XCTAssertEqual(try PeerMessage(kind: 200, body: [0xff, 0x00]), .unknown(kind: 200), "its body is not read")
        XCTAssertFalse(PeerMessage.isAllowedBeforePairing(kind: 200), "only a paired peer's newer messages are skipped")
    }

    func testHellosSayProtocolAndCapabilitiesAndFirstReleaseOnesReadAsProtocolOne() throws {
        let hello = PeerHello(deviceID: "ab12", name: "laptop", port: 48100, protocolVersion: 2,
                              capabilities: ["pairing-typed-codes", "streams"])
        XCTAssertEqual(try PeerMessage(kind: 1, body: Array(PeerMessage.hello(hello).frame.dropFirst(PeerFrame.headerSize))),
                       .hello(hello))
        let firstRelease = BusValue.serialize(record: ["id": .string("ab12"), "name": .string("old"), "port": .uint32(0)])
        guard case .hello(let old) = try PeerMessage(kind: 1, body: firstRelease) else { return XCTFail("not a hello") }
        XCTAssertEqual(old.protocolVersion, 1)
        XCTAssertEqual(old.capabilities, [])
        let badNames = BusValue.serialize(record: ["id": .string("ab12"), "name": .string("x"), "port": .uint32(0),
                                                   "capabilities": .strings(["no spaces allowed"])])
        XCTAssertThrowsError(try PeerMessage(kind: 1, body: badNames))
        let tooMany = BusValue.serialize(record: ["id": .string("ab12"), "name": .string("x"), "port": .uint32(0),
                                                  "capabilities": .strings((0...PeerCapability.maximumCount).map { "c\($0)" })])
        XCTAssertThrowsError(try PeerMessage(kind: 1, body: tooMany))
    }

    func testMalformedBodiesAreRefused() {
        // A body that is not a record, a record with a field of the wrong type, and an offers
        // message whose list is not a list of records.
        XCTAssertThrowsError(try PeerMessage(kind: 1, body: [1, 2, 3, 4, 5]))
        let helloWithStringPort = BusValue.serialize(record: ["id": .string("ab"), "name": .string("x"), "port": .string("1")])
        XCTAssertThrowsError(try PeerMessage(kind: 1, body: helloWithStringPort))
        let badID = BusValue.serialize(record: ["request": .uint32(1), "id": .string("../etc")])
        XCTAssertThrowsError(try PeerMessage(kind: 7, body: badID))
        XCTAssertThrowsError(try PeerMessage(kind: 6, body: BusValue.serialize(record: ["offers": .strings(["a"])])))
        XCTAssertThrowsError(try PeerMessage(kind: 6, body: BusValue.serialize(record: [:])), "no offers list")
        let tooMany = Array(repeating: ["id": BusValue.string("a")], count: PeerMessage.maximumOffers + 1)
        XCTAssertThrowsError(try PeerMessage(kind: 6, body: BusValue.serialize(record: ["offers": .dictionaries(tooMany)])))
        let shortCommitment = BusValue.serialize(record: ["commitment": .bytes(Array(repeating: 1, count: 16))])
        XCTAssertThrowsError(try PeerMessage(kind: 2, body: shortCommitment)) { error in
            XCTAssertTrue("\(error)".contains("32 bytes"), "\(error)")
        }
        XCTAssertThrowsError(try PeerMessage(kind: 13, body: BusValue.serialize(record: [:])))
        let emptyName = PeerMessage.renamed(name: "").frame
        XCTAssertThrowsError(try PeerMessage(kind: emptyName[3], body: Array(emptyName.dropFirst(PeerFrame.headerSize)))) {
            XCTAssertTrue("\($0)".contains("must not be empty"), "\($0)")
        }
        let longProblem = PeerMessage.reachBackResult(request: 1, problem: String(repeating: "x", count: 1025)).frame
        XCTAssertThrowsError(try PeerMessage(kind: longProblem[3], body: Array(longProblem.dropFirst(PeerFrame.headerSize))))
        // A streamData body is the stream number and 1 to maximumStreamChunk bytes.
        for body: [UInt8] in [[0, 0, 0, 1], [0, 0, 1], [0, 0, 0, 1] + Array(repeating: 1, count: PeerMessage.maximumStreamChunk + 1)] {
            XCTAssertThrowsError(try PeerMessage(kind: PeerMessage.streamData(stream: 1, bytes: [1]).frame[3], body: body))
        }
        for message in [PeerMessage.renamed(name: "x"), .reachBack(request: 1), .reachBackResult(request: 1, problem: ""),
                        .streamOpen(stream: 1, activityID: "a"), .streamData(stream: 1, bytes: [1])] {
            XCTAssertFalse(message.isAllowedBeforePairing, "\(message) is for paired devices only")
        }
    }

    func testTheKindIsKnownBeforeTheBodyAndTheLimitCanBeLowered() throws {
        var reader = FrameReader()
        reader.maximumBodySize = 100
        let fetch = PeerMessage.fetch(request: 1, activityID: "abc").frame
        fetch.prefix(PeerFrame.headerSize).withUnsafeBytes { reader.append($0) }
        XCTAssertEqual(reader.pendingKind, fetch[3], "the kind is known from the header alone")
        XCTAssertNil(try reader.next(), "the body is still to come")
        XCTAssertFalse(PeerMessage.isAllowedBeforePairing(kind: fetch[3]))
        XCTAssertTrue(PeerMessage.isAllowedBeforePairing(kind: PeerMessage.ping.frame[3]))

        var small = FrameReader()
        small.maximumBodySize = 100
        PeerMessage.payload(request: 1, bytes: Array(repeating: 0, count: 200)).frame.withUnsafeBytes { small.append($0) }
        XCTAssertThrowsError(try small.next()) { error in
            XCTAssertTrue("\(error)".contains("over the limit of 100"), "\(error)")
        }
        var garbage = FrameReader()
        Array("GET / HTTP/1.1".utf8).withUnsafeBytes { garbage.append($0) }
        XCTAssertNil(garbage.pendingKind, "no kind is read from bytes that are not a frame")
    }

    func testOffersAreCutToWhatOneFrameCarries() throws {
        let long = String(repeating: "x", count: UserActivityPayload.maximumFieldLength - 100)
        let offers = (0..<64).map { index in
            PeerOffer(id: "offer\(index)",
                      summary: ActivitySummary(activityType: "org.example.\(index).\(long)", title: long,
                                               webpageURL: URL(string: "https://example.org/\(long)")),
                      appID: "org.example.App", teamID: "org.example")
        }
        XCTAssertGreaterThan(PeerMessage.offers(offers).frame.count, PeerFrame.maximumBodySize, "too big as it is")
        let fitting = PeerMessage.offersFitting(offers)
        XCTAssertFalse(fitting.isEmpty)
        XCTAssertEqual(fitting, Array(offers.prefix(fitting.count)), "the first ones, in order")
        let frame = PeerMessage.offers(fitting).frame
        XCTAssertLessThanOrEqual(frame.count - PeerFrame.headerSize, PeerFrame.maximumBodySize)
        var reader = FrameReader()
        frame.withUnsafeBytes { reader.append($0) }
        let read = try XCTUnwrap(try reader.next(), "a peer reads it whole")
        XCTAssertEqual(try PeerMessage(kind: read.kind, body: read.body), .offers(fitting))

        let few = Array(offers.prefix(3))
        XCTAssertEqual(PeerMessage.offersFitting(few), few, "what fits is left as it is")
        let small = PeerOffer(id: "small", summary: ActivitySummary(activityType: "org.example.note"),
                              appID: "org.example.Notes", teamID: "org.example")
        XCTAssertEqual(PeerMessage.offersFitting(Array(repeating: small, count: 80)).count, PeerMessage.maximumOffers)
    }

    /// A hello whose device name, or an offer whose title, holds a control character, a
    /// bidirectional control or a line separator is refused like any other invalid field.
    /// A document description names a file, never a path, of a size the continuing side
    /// accepts, with a whole digest and a MIME type.
    func testHostileDocumentDescriptionsAreRefused() throws {
        let good = PeerDocument(name: "report.md", size: 10, sha256: Array(repeating: 1, count: 32), mimeType: "text/plain")
        var hostile: [(PeerDocument, String)] = []
        for name in ["../../.bashrc", "/etc/passwd", "..", ".", "", "a/b.md", "evil\u{202E}dm.exe",
                     String(repeating: "x", count: 256)] {
            var document = good
            document.name = name
            hostile.append((document, "name"))
        }
        var large = good
        large.size = PeerDocument.maximumSize + 1
        hostile.append((large, "size"))
        var shortDigest = good
        shortDigest.sha256 = [1, 2, 3]
        hostile.append((shortDigest, "sha256"))
        for mimeType in ["text", "text/plain; charset=utf-8", "a/b/c", "text/pla in"] {
            var document = good
            document.mimeType = mimeType
            hostile.append((document, "mime-type"))
        }
        for (document, field) in hostile {
            let frame = PeerMessage.payload(request: 1, bytes: [1], document: document).frame
            XCTAssertThrowsError(try PeerMessage(kind: frame[3], body: Array(frame.dropFirst(PeerFrame.headerSize))),
                                 "\(document) is refused") { error in
                XCTAssertTrue("\(error)".contains("\"\(field)\""), "\(error) names \(field)")
            }
        }
        let notARecord = BusValue.serialize(record: ["request": .uint32(1), "payload": .bytes([1]), "document": .string("x")])
        XCTAssertThrowsError(try PeerMessage(kind: PeerMessage.payload(request: 1, bytes: [1]).frame[3], body: notARecord))
        XCTAssertEqual(PeerDocument.activityID(fromStreamActivityID: PeerDocument.streamActivityID(for: "abc-1")), "abc-1")
        XCTAssertNil(PeerDocument.activityID(fromStreamActivityID: "abc-1"))
    }

    func testNamesAndTitlesWithControlsOrBidiOverridesAreRefused() throws {
        let unsafe: [Unicode.Scalar] = ["\u{1B}", "\u{7F}", "\u{9B}", "\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}",
                                        "\u{200E}", "\u{200F}", "\u{061C}", "\u{2028}", "\u{2029}"]
        for scalar in unsafe {
            let text = "laptop" + String(Character(scalar)) + "txt.exe"
            let hello = PeerMessage.hello(PeerHello(deviceID: "0123abcd", name: text, port: 48_100)).frame
            XCTAssertThrowsError(try PeerMessage(kind: hello[3], body: Array(hello.dropFirst(PeerFrame.headerSize))),
                                 "a hello named with U+\(String(scalar.value, radix: 16))") { error in
                XCTAssertTrue("\(error)".contains("\"name\""), "\(error)")
            }
            let renamed = PeerMessage.renamed(name: text).frame
            XCTAssertThrowsError(try PeerMessage(kind: renamed[3], body: Array(renamed.dropFirst(PeerFrame.headerSize))),
                                 "a new name with U+\(String(scalar.value, radix: 16))")
            let offer = PeerOffer(id: "abc123", summary: ActivitySummary(activityType: "org.example.note", title: text),
                                  appID: "org.example.Notes", teamID: "org.example")
            let offers = PeerMessage.offers([offer]).frame
            var dropped: [PeerProtocolError] = []
            XCTAssertEqual(try PeerMessage(kind: offers[3], body: Array(offers.dropFirst(PeerFrame.headerSize)),
                                           droppedOffers: &dropped), .offers([]),
                           "an offer titled with U+\(String(scalar.value, radix: 16)) is left out")
            XCTAssertEqual(dropped.count, 1)
            XCTAssertTrue(dropped.first?.reason.contains("\"title\"") == true, "\(dropped)")
        }
        let fine = "Entwurf: Mittagessen — ✓ مرحبا 日本語"
        let hello = PeerMessage.hello(PeerHello(deviceID: "0123abcd", name: fine, port: 1)).frame
        XCTAssertEqual(try PeerMessage(kind: hello[3], body: Array(hello.dropFirst(PeerFrame.headerSize))),
                       .hello(PeerHello(deviceID: "0123abcd", name: fine, port: 1)), "ordinary text of any script passes")
    }

    /// A peer of an earlier version may offer a title that is refused now: that offer is left
    /// out and counted, the others of the message are kept, and the message is no protocol
    /// error (which would close the link, again and again).
    func testAnOffersMessageWithOneBadOfferKeepsTheGoodOnes() throws {
        let good = PeerOffer(id: "good1", summary: ActivitySummary(activityType: "org.example.note", title: "Lunch"),
                             appID: "org.example.Notes", teamID: "org.example")
        var bad = good.summary.record
        bad["title"] = .string("Subject:\tright-to-left \u{200F}mark\nnext line")
        bad["id"] = .string("bad1")
        bad["app-id"] = .string("org.example.Notes")
        bad["team-id"] = .string("org.example")
        var noID = good.summary.record
        noID["app-id"] = .string("org.example.Notes")
        noID["team-id"] = .string("org.example")
        var goodRecord = good.summary.record
        goodRecord["id"] = .string(good.id)
        goodRecord["app-id"] = .string(good.appID)
        goodRecord["team-id"] = .string(good.teamID)
        let frame = PeerFrame.encode(kind: PeerMessage.offers([]).frame[3],
                                     body: BusValue.serialize(record: ["offers": .dictionaries([bad, goodRecord, noID])]))
        var reader = FrameReader()
        frame.withUnsafeBytes { reader.append($0) }
        let read = try XCTUnwrap(try reader.next())

        XCTAssertEqual(try PeerMessage(kind: read.kind, body: read.body), .offers([good]))
        var dropped: [PeerProtocolError] = []
        XCTAssertEqual(try PeerMessage(kind: read.kind, body: read.body, droppedOffers: &dropped), .offers([good]))
        XCTAssertEqual(dropped.count, 2, "\(dropped)")
        XCTAssertTrue(dropped[0].reason.contains("\"title\""), dropped[0].reason)
        XCTAssertTrue(dropped[1].reason.contains("\"id\""), dropped[1].reason)
    }

    /// Reading a record once handed GLib its type, `a{sv}`, through a temporary C string that
    /// was already freed: a use after free on every record a peer sent (found by
    /// Fuzz/FuzzPeerFrame). AddressSanitizer reports it at the first record, under
    /// `swift test --sanitize=address` and in `scripts/fuzz.sh`, whose seeds all hold records.
    func testRecordsAreReadWithTheirTypeStillAlive() throws {
        let record: [String: BusValue] = ["id": .string("0123abcd"), "name": .string("laptop"), "port": .uint32(48_100)]
        for _ in 0..<100 {
            XCTAssertEqual(try BusValue.deserialize(record: BusValue.serialize(record: record)), record)
        }
    }

    /// A summary's webpage URL is checked at its length once `URL` percent-encoded it: a text
    /// of 4 KiB or less that grows past the limit was read, and its own record then refused,
    /// so a peer dropped the offer (the flaw Fuzz/FuzzPayload found in payloads;
    /// Fuzz/FuzzBusRecord checks summaries for it).
    func testSummaryURLOverTheLimitOnceEncodedIsRefused() throws {
        let growing = "https://example.org/" + String(repeating: "ä", count: 2000)
        XCTAssertLessThanOrEqual(growing.utf8.count, UserActivityPayload.maximumFieldLength)
        XCTAssertThrowsError(try ActivitySummary(record: ["type": .string("org.example.note"), "webpage-url": .string(growing)]))
        let fitting = "https://example.org/" + String(repeating: "ä", count: 600)
        let summary = try ActivitySummary(record: ["type": .string("org.example.note"), "webpage-url": .string(fitting)])
        XCTAssertEqual(try ActivitySummary(record: summary.record), summary, "it reads back from its own record")
    }
}
