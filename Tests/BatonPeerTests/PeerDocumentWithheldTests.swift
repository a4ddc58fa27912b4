import BatonBus
import BatonGLib
import BatonPeer
import XCTest

/// The `document-withheld` field of a `payload` message: why the origin did not describe the
/// file its activity names. Optional (a peer of an earlier build sends none), tolerant of a
/// reason from a newer peer, strict about the MIME type it carries.
final class PeerDocumentWithheldTests: XCTestCase {
    private let payloadKind = PeerMessage.Kind.payload.rawValue

    private func read(_ record: [String: BusValue]) throws -> PeerMessage {
        try PeerMessage(kind: payloadKind, body: BusValue.serialize(record: record))
    }

    private func payload(withheld: [String: BusValue]) -> [String: BusValue] {
        ["request": .uint32(3), "payload": .bytes([1, 2]), "document-withheld": .dictionary(withheld)]
    }

    func testEveryReasonSurvivesItsFrame() throws {
        let reasons: [PeerDocumentWithheld] = [.notVerified, .unreadable, .tooLarge, .unsendableName, .outsideHome,
                                               .openedByThisDevice, .undeclaredType("text/plain"),
                                               .undeclaredType("application/vnd.example.todo+json"), .unknown]
        for reason in reasons {
            let message = PeerMessage.payload(request: 3, bytes: [1, 2], withheld: reason)
            let frame = message.frame
            XCTAssertEqual(try PeerMessage(kind: frame[3], body: Array(frame.dropFirst(PeerFrame.headerSize))), message, "\(reason)")
        }
    }

    func testAPayloadWithoutTheFieldSaysNoReason() throws {
        XCTAssertEqual(try read(["request": .uint32(3), "payload": .bytes([1, 2])]),
                       .payload(request: 3, bytes: [1, 2], document: nil, withheld: nil), "an earlier build's payload")
    }

    func testAReasonOfANewerPeerReadsAsUnknown() throws {
        XCTAssertEqual(try read(payload(withheld: ["reason": .string("on-a-holiday"), "until": .uint32(9)])),
                       .payload(request: 3, bytes: [1, 2], withheld: .unknown))
        XCTAssertEqual(PeerDocumentWithheld.unknown.explanation, "for a reason this version of Baton does not know")
    }

    func testABadReasonOrMIMETypeIsRefusedSayingWhich() throws {
        let hostile: [(record: [String: BusValue], field: String)] = [
            (payload(withheld: ["reason": .uint32(1)]), "\"reason\""),
            (payload(withheld: [:]), "\"reason\""),
            (payload(withheld: ["reason": .string("undeclared-type")]), "\"mime-type\""),
            (payload(withheld: ["reason": .string("undeclared-type"), "mime-type": .string("text")]), "\"mime-type\""),
            (payload(withheld: ["reason": .string("undeclared-type"), "mime-type": .string("text/plain; charset=utf-8")]),
             "\"mime-type\""),
            (payload(withheld: ["reason": .string("undeclared-type"), "mime-type": .string("text/" + String(repeating: "x", count: 128))]),
             "\"mime-type\""),
            (payload(withheld: ["reason": .string("undeclared-type"), "mime-type": .string("text/plain\u{202E}")]), "\"mime-type\""),
            (["request": .uint32(3), "payload": .bytes([1]), "document-withheld": .string("too-large")], "\"document-withheld\""),
        ]
        for (record, field) in hostile {
            XCTAssertThrowsError(try read(record), "\(record) is refused") { error in
                XCTAssertTrue(error is PeerProtocolError, "\(error)")
                XCTAssertTrue("\(error)".contains(field), "\(error) names \(field)")
            }
        }
    }

    func testTheExplanationsAreForPeopleAndNameNoFile() {
        XCTAssertEqual(PeerDocumentWithheld.undeclaredType("text/plain").explanation,
                       "its type there, text/plain, is not one the app declares for this activity — "
                           + "the app needs a shared-mime-info definition for its file extension")
        XCTAssertEqual(PeerDocumentWithheld.undeclaredType("image/png").explanation,
                       "its type there, image/png, is not one the app declares for this activity")
        XCTAssertEqual(PeerDocumentWithheld.tooLarge.explanation, "it is larger than 64 MiB")
        XCTAssertEqual(PeerDocumentWithheld.notVerified.explanation, "the app there is not verified for this kind of activity")
    }
}
