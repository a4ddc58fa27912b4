import Baton
@testable import BatonBrowserHost
import BatonBus
import Foundation
import XCTest

/// The browser host's reading of the extension's messages: the frames, the JSON, and the page
/// activity made of them.
final class BrowserExtensionMessageTests: XCTestCase {
    private func decode(_ text: String) throws -> BrowserMessage {
        try BrowserMessage.decode(Array(text.utf8))
    }

    private func refusal(_ text: String) -> BrowserMessageError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error as? BrowserMessageError
        }
    }

    func testMessagesAreRead() throws {
        XCTAssertEqual(try decode(#"{"page": {"url": "https://example.org/a?b#c", "title": "A"}}"#),
                       .page(url: try XCTUnwrap(URL(string: "https://example.org/a?b#c")), title: "A"))
        XCTAssertEqual(try decode(#"{"page": {"url": "http://127.0.0.1:8080/"}}"#),
                       .page(url: try XCTUnwrap(URL(string: "http://127.0.0.1:8080/")), title: nil))
        XCTAssertEqual(try decode(#"{"page": {"url": "https://example.org/", "title": null, "favicon": 1}, "v": 2}"#),
                       .page(url: try XCTUnwrap(URL(string: "https://example.org/")), title: nil))
        XCTAssertEqual(try decode(#"{"page": null}"#), .none(active: false))
        XCTAssertEqual(try decode(#"{"page": null, "active": true}"#), .none(active: true))
        XCTAssertEqual(try decode(#"{"page": null, "active": false}"#), .none(active: false))
    }

    func testWrongMessagesAreRefusedSayingWhy() {
        XCTAssertEqual(refusal(""), .notJSON)
        XCTAssertEqual(refusal("{"), .notJSON)
        XCTAssertEqual(refusal("\"page\""), .notJSON)
        XCTAssertEqual(refusal("[]"), .notAnObject)
        XCTAssertEqual(refusal("{}"), .missing("page"))
        XCTAssertEqual(refusal(#"{"page": {}}"#), .missing("page.url"))
        XCTAssertEqual(refusal(#"{"page": 1}"#), .wrongType("page", expected: "an object or null"))
        XCTAssertEqual(refusal(#"{"page": {"url": ["x"]}}"#), .wrongType("page.url", expected: "a string"))
        XCTAssertEqual(refusal(#"{"page": {"url": "https://a.org/", "title": 7}}"#),
                       .wrongType("page.title", expected: "a string or null"))
        XCTAssertEqual(refusal(#"{"page": null, "active": "yes"}"#), .wrongType("active", expected: "a boolean"))
        XCTAssertEqual(refusal(#"{"page": null, "active": 1}"#), .wrongType("active", expected: "a boolean"))
        XCTAssertEqual(refusal(#"{"page": {"url": "javascript:alert(1)"}}"#),
                       .unsupportedURL("its scheme is javascript, not http or https"))
        XCTAssertEqual(refusal(#"{"page": {"url": "FILE:///etc/passwd"}}"#),
                       .unsupportedURL("its scheme is file, not http or https"))
        XCTAssertEqual(refusal(#"{"page": {"url": "https://"}}"#), .unsupportedURL("it is not a valid https URL with a host"))
        XCTAssertEqual(refusal(#"{"page": {"url": "/relative"}}"#), .unsupportedURL("it is not an absolute URL"))
        let long = "https://example.org/" + String(repeating: "a", count: 5000)
        XCTAssertEqual(refusal(#"{"page": {"url": "\#(long)"}}"#),
                       .unsupportedURL("it is 5020 bytes long, over the limit of 4096"))
        XCTAssertEqual(refusal(String(repeating: "[", count: 100_000)), .notJSON)
        XCTAssertThrowsError(try BrowserMessage.decode([UInt8](repeating: 0x20, count: BrowserMessage.maximumSize + 1))) {
            XCTAssertEqual($0 as? BrowserMessageError, .tooLarge(BrowserMessage.maximumSize + 1))
        }
        XCTAssertThrowsError(try BrowserMessage.decode([0xFF, 0xFE])) { XCTAssertEqual($0 as? BrowserMessageError, .notJSON) }
    }

    func testFramesAreCutWhateverTheChunks() {
        let first = Array(#"{"page": null}"#.utf8)
        let second = Array(#"{"page": null, "active": true}"#.utf8)
        let stream = NativeMessageFramer.header(forLength: first.count) + first
            + NativeMessageFramer.header(forLength: 0)
            + NativeMessageFramer.header(forLength: second.count) + second
        for size in [1, 2, 3, 5, 7, stream.count] {
            var framer = NativeMessageFramer()
            var events: [NativeMessageFramer.Event] = []
            var start = 0
            while start < stream.count {
                events += framer.append(stream[start..<min(start + size, stream.count)])
                start += size
            }
            XCTAssertEqual(events, [.message(first), .message([]), .message(second)], "chunks of \(size)")
            XCTAssertTrue(framer.isBetweenFrames)
        }
        var framer = NativeMessageFramer()
        XCTAssertEqual(framer.append(NativeMessageFramer.header(forLength: 10) + [1, 2]), [])
        XCTAssertFalse(framer.isBetweenFrames, "a frame is partly read")
    }

    func testAnOversizedFrameIsSkippedWithoutKeepingIt() {
        let length = BrowserMessage.maximumSize + 1
        var framer = NativeMessageFramer()
        XCTAssertEqual(framer.append(NativeMessageFramer.header(forLength: length)), [.oversized(length: length)])
        XCTAssertEqual(framer.append([UInt8](repeating: 0x41, count: length - 1)), [])
        let next = Array(#"{"page": null}"#.utf8)
        XCTAssertEqual(framer.append([0x41] + NativeMessageFramer.header(forLength: next.count) + next), [.message(next)])
        XCTAssertEqual(framer.append(NativeMessageFramer.header(forLength: Int(UInt32.max))), [.oversized(length: Int(UInt32.max))])
        XCTAssertFalse(framer.isBetweenFrames)
        XCTAssertEqual(NativeMessageFramer.header(forLength: 0x0102_0304), [0x04, 0x03, 0x02, 0x01], "native order, little-endian here")
    }

    func testAPageIsABrowsingWebActivity() throws {
        let url = try XCTUnwrap(URL(string: "https://example.org/a"))
        let page = PageActivity(url: url, title: "  A\u{202E} page\n", following: nil)
        XCTAssertEqual(page.summary.activityType, UserActivity.browsingWebType)
        XCTAssertEqual(page.summary.title, "A page")
        XCTAssertEqual(page.summary.webpageURL, url)
        XCTAssertTrue(page.summary.isEligibleForHandoff)
        XCTAssertNoThrow(try ActivitySummary(record: page.summary.record), "batond accepts the summary")

        let payload = try UserActivityPayload(decoding: try page.payload.encodedBytes())
        XCTAssertEqual(payload.activityType, "NSUserActivityTypeBrowsingWeb")
        XCTAssertEqual(payload.title, "A page")
        XCTAssertEqual(payload.webpageURL, url)
        XCTAssertEqual(payload.userInfo, [:])

        let retitled = PageActivity(url: url, title: "B", following: page)
        XCTAssertEqual(retitled.id, page.id, "the same page retitled keeps its id")
        let other = PageActivity(url: try XCTUnwrap(URL(string: "https://example.org/b")), title: "B", following: retitled)
        XCTAssertNotEqual(other.id, page.id, "another page has another id")
        XCTAssertNil(PageActivity(url: url, title: " \u{07}\t", following: nil).summary.title, "a blank title is no title")
        let long = PageActivity(url: url, title: String(repeating: "é", count: 5000), following: nil)
        XCTAssertLessThanOrEqual(long.summary.title?.utf8.count ?? 0, ActivityLimits.maximumTitleLength)
    }
}
