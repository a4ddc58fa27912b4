import Baton
import BatonBus
import Foundation
import XCTest

/// Runs no work: the tests below only set fields and read the summary.
@MainActor
private final class IdleScheduler: ActivityScheduler {
    func schedule(_ work: @escaping @MainActor () -> Void) {}
}

/// The core and batond agree on an activity's limits (``ActivityLimits``): whatever an app
/// sets through the public API, the summary it publishes (``ActivitySummary/cleaned``) is one
/// batond's check of `PublishCurrent` (``ActivitySummary/init(record:)``) accepts.
@MainActor
final class ActivityLimitsAgreementTests: XCTestCase {
    private func activity(_ type: String = "org.example.limits") -> UserActivity {
        UserActivity(activityType: type, center: ActivityCenter(scheduler: IdleScheduler()))
    }

    /// The record batond reads back from what the app publishes, or the error it refuses it with.
    private func published(_ activity: UserActivity) throws -> ActivitySummary {
        try ActivitySummary(record: ActivitySummary(activity).cleaned.record)
    }

    func testWhatTheSettersLetThroughIsAccepted() async throws {
        let limit = ActivityLimits.maximumWebpageURLLength
        let start = "https://example.org/"
        let longest = try XCTUnwrap(URL(string: start + String(repeating: "u", count: limit - start.utf8.count)))
        let titles = ["Re: \u{200F}مرحبا\tand\nmore", String(repeating: "é", count: 3000) + "\n",
                      String(repeating: "👩‍👩‍👧", count: 400), "esc \u{1B}]0;x\u{07}", ""]
        let dates = [Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity),
                     Date(timeIntervalSince1970: .nan), .distantFuture, .distantPast, Date()]
        for title in titles {
            for date in dates {
                let activity = activity()
                activity.title = title
                activity.expirationDate = date
                try activity.setWebpageURL(longest)
                activity.isEligibleForHandoff = false
                let summary = try published(activity)
                XCTAssertEqual(summary.webpageURL?.absoluteString, longest.absoluteString)
                if let expected = activity.expirationDate {
                    XCTAssertEqual(summary.expirationDate?.timeIntervalSince1970 ?? .nan, expected.timeIntervalSince1970,
                                   accuracy: 0.001)
                } else {
                    XCTAssertNil(summary.expirationDate)
                }
            }
        }
    }

    func testTheServiceRefusesWhatTheCoreRefuses() async throws {
        let limit = ActivityLimits.maximumWebpageURLLength
        let start = "https://example.org/"
        let over = start + String(repeating: "u", count: limit + 1 - start.utf8.count)
        let activity = activity()
        XCTAssertThrowsError(try activity.setWebpageURL(XCTUnwrap(URL(string: over))))
        XCTAssertThrowsError(try ActivitySummary(record: ["type": .string("a.b"), "webpage-url": .string(over)])) { error in
            XCTAssertTrue("\(error)".contains("at most 4 KiB (4096 bytes) (it is 4097 bytes)"), "\(error)")
        }
        for type in ["", "a\u{1B}b", "a\u{202E}b", String(repeating: "t", count: ActivityLimits.maximumActivityTypeLength + 1)] {
            XCTAssertFalse(ActivityLimits.isValidActivityType(type))
            XCTAssertThrowsError(try ActivitySummary.checkActivityType(type), type.prefix(20).debugDescription)
        }
        XCTAssertNoThrow(try ActivitySummary.checkActivityType(String(repeating: "t", count: ActivityLimits.maximumActivityTypeLength)))
        XCTAssertThrowsError(try ActivitySummary.checkTitle(String(repeating: "x", count: ActivityLimits.maximumTitleLength + 1)))
        XCTAssertNoThrow(try ActivitySummary.checkTitle(String(repeating: "x", count: ActivityLimits.maximumTitleLength)))
    }

    /// The characters batond refuses are exactly the documented ones: C0, DEL and C1
    /// controls, the line and paragraph separators, and the bidirectional controls.
    func testUnsafeCharactersAreExactlyTheDocumentedOnes() {
        var expected = Set<UInt32>(0x00...0x1F)
        expected.formUnion(0x7F...0x9F)
        expected.formUnion([0x2028, 0x2029, 0x061C, 0x200E, 0x200F])
        expected.formUnion(0x202A...0x202E)
        expected.formUnion(0x2066...0x2069)
        for value in UInt32(0)...0x2100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(UnsafeCharacters.isUnsafe(scalar), expected.contains(value), "U+\(String(value, radix: 16))")
        }
        XCTAssertFalse(UnsafeCharacters.isUnsafe("é"))
    }
}
