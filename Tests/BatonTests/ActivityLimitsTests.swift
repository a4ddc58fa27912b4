import Baton
import BatonTesting
import Foundation
import XCTest

/// The service's limits enforced where an activity's fields are set: refused by the setter
/// that throws (`setWebpageURL`), cut by the others, so that every activity an app can make
/// is published and saved without a refusal.
@MainActor
final class ActivityLimitsTests: XCTestCase {
    /// An http URL of exactly `bytes` bytes.
    private func url(ofLength bytes: Int) throws -> URL {
        let start = "https://example.org/"
        let url = try XCTUnwrap(URL(string: start + String(repeating: "p", count: bytes - start.utf8.count)))
        XCTAssertEqual(url.absoluteString.utf8.count, bytes)
        return url
    }

    // MARK: Webpage URL

    func testTheLongestWebpageURLIsAcceptedAndOneByteMoreIsRefused() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.limits", center: center)
        let limit = ActivityLimits.maximumWebpageURLLength
        XCTAssertEqual(limit, 4096)
        let longest = try url(ofLength: limit)
        try activity.setWebpageURL(longest)
        XCTAssertEqual(activity.webpageURL, longest)

        let over = try url(ofLength: limit + 1)
        let error = catchUserActivityError { try activity.setWebpageURL(over) }
        XCTAssertEqual(error?.isInvalidWebpageURL, true, String(describing: error))
        XCTAssertEqual(error?.code, 4640)
        guard case .invalidWebpageURL(let message) = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(message.contains("4097 bytes") && message.contains("limit of 4096 bytes"), message)
        XCTAssertLessThan(message.utf8.count, 200, "the message quotes the URL's start, not all of it")
        XCTAssertTrue(message.hasPrefix("https://example.org/ppp"), message)
        XCTAssertEqual(activity.webpageURL, longest, "the activity is left unchanged")
    }

    func testTheURLCheckIsTheOneTheServiceReadsURLsWith() async throws {
        let limit = ActivityLimits.maximumWebpageURLLength
        XCTAssertNotNil(ActivityLimits.webpageURL(fromText: try url(ofLength: limit).absoluteString))
        XCTAssertNil(ActivityLimits.webpageURL(fromText: try url(ofLength: limit + 1).absoluteString))
        for text in ["ftp://example.org/x", "/relative", "https:", "http:///no-host", ""] {
            XCTAssertNil(ActivityLimits.webpageURL(fromText: text), text)
            if let url = URL(string: text) {
                XCTAssertThrowsError(try ActivityLimits.checkWebpageURL(url), text)
            }
        }
    }

    func testAnActivityFromAPayloadWithAnOverLongURLIsRefused() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let payload = UserActivityPayload(activityType: "test.limits", webpageURL: try url(ofLength: 5000))
        let error = catchUserActivityError { _ = try UserActivity(payload: payload, center: center) }
        XCTAssertEqual(error?.isInvalidWebpageURL, true, String(describing: error))
    }

    // MARK: Fields cut where they are set

    func testAnOverLongTitleIsCutBetweenWholeCharacters() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.limits", center: center)
        let title = String(repeating: "é", count: 3000)   // 6000 bytes
        activity.title = title
        let kept = try XCTUnwrap(activity.title)
        XCTAssertLessThanOrEqual(kept.utf8.count, ActivityLimits.maximumTitleLength)
        XCTAssertEqual(kept.utf8.count, ActivityLimits.maximumTitleLength, "2048 whole é fill 4096 bytes")
        XCTAssertTrue(title.hasPrefix(kept))
        activity.title = "short\ttitle"
        XCTAssertEqual(activity.title, "short\ttitle", "a title within the limit is kept as it is")
    }

    func testKeywordsAreKeptWithinTheirLimits() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.limits", center: center)
        activity.keywords = ["mail", "draft"]
        XCTAssertEqual(activity.keywords, ["mail", "draft"])

        let long = String(repeating: "k", count: 1000)
        activity.keywords = Set((0..<40).map { "\($0 < 10 ? "0" : "")\($0)" + long })
        XCTAssertFalse(activity.keywords.isEmpty)
        XCTAssertTrue(activity.keywords.allSatisfy { $0.utf8.count <= ActivityLimits.maximumKeywordLength })
        XCTAssertLessThanOrEqual(ActivityLimits.keywordsSize(activity.keywords), ActivityLimits.maximumKeywordsSize)
        XCTAssertTrue(activity.keywords.contains("00" + String(long.prefix(ActivityLimits.maximumKeywordLength - 2))),
                      "the first in sorted order are kept")
    }

    func testAnInfiniteExpirationDateBecomesNeverOrThePast() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.limits", center: center)
        activity.expirationDate = Date(timeIntervalSince1970: .infinity)
        XCTAssertNil(activity.expirationDate)
        activity.expirationDate = Date(timeIntervalSince1970: -.infinity)
        XCTAssertEqual(activity.expirationDate, .distantPast)
        activity.expirationDate = Date(timeIntervalSince1970: .nan)
        XCTAssertNil(activity.expirationDate)
        let date = Date(timeIntervalSinceReferenceDate: 900_000_000)
        activity.expirationDate = date
        XCTAssertEqual(activity.expirationDate, date)
    }

    // MARK: The type

    func testAnActivityOfATypeTheServiceRefusesNeverBecomesCurrent() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        for type in ["", "bad\u{1B}[2Jtype", "bidi.\u{202E}type", String(repeating: "t", count: 4097)] {
            XCTAssertFalse(ActivityLimits.isValidActivityType(type), type.prefix(20).debugDescription)
            let activity = UserActivity(activityType: type, center: center)
            activity.becomeCurrent()
            XCTAssertFalse(activity.isCurrent, "by hand: \(type.prefix(20).debugDescription)")

            let (window, responders) = ResponderChainBuilder.window(depth: 1)
            responders[0].userActivity = activity
            center.mainWindow = window
            scheduler.runUntilIdle()
            XCTAssertFalse(activity.isCurrent, "by election: \(type.prefix(20).debugDescription)")
        }
        let longest = UserActivity(activityType: String(repeating: "t", count: 4096), center: center)
        longest.becomeCurrent()
        XCTAssertTrue(longest.isCurrent)
    }

    // MARK: Everything at its limit

    /// An activity with every field as long as the setters leave it, and a `userInfo` of
    /// exactly the limit, still encodes: saving never fails for what the setters let through.
    func testAnActivityWithEveryFieldAtItsLimitEncodes() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let type = String(repeating: "t", count: ActivityLimits.maximumActivityTypeLength)
        let activity = UserActivity(activityType: type, center: center)
        activity.title = String(repeating: "x", count: 10_000)
        try activity.setWebpageURL(url(ofLength: ActivityLimits.maximumWebpageURLLength))
        activity.keywords = Set((0..<500).map { String(format: "%03d", $0) + String(repeating: "k", count: 300) })
        activity.expirationDate = Date(timeIntervalSinceReferenceDate: 900_000_000)
        activity.userInfo = ["k": .data(Data(repeating: 7, count: ActivityLimits.maximumUserInfoSize - 7))]
        let payload = activity.payload
        XCTAssertEqual(payload.encodedUserInfoSize, ActivityLimits.maximumUserInfoSize)
        let bytes = try payload.encodedBytes()
        XCTAssertLessThanOrEqual(bytes.count, ActivityLimits.maximumEncodedSize)
        XCTAssertEqual(try UserActivityPayload(decoding: bytes), payload)

        // Keywords as short as can be, as many as fit.
        activity.keywords = Set((0..<5000).map { String($0) })
        XCTAssertNoThrow(try activity.payload.encodedBytes())
    }
}
