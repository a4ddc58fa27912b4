import Baton
import BatonBus
import XCTest

/// The one cleaning of text an app publishes: word breaks become a space, other unsafe
/// characters go, and a title batond would refuse is never published as it is.
final class TitleCleaningTests: XCTestCase {
    func testBreaksBecomeASpaceAndOtherUnsafeCharactersGo() {
        XCTAssertEqual(UnsafeCharacters.cleaned("a\tb\nc\r\nd\re\u{2028}f\u{2029}g\u{85}h\u{0B}i\u{0C}j"),
                       "a b c d e f g h i j", "\\r\\n is one break")
        XCTAssertEqual(UnsafeCharacters.cleaned("\u{200F}שלום\u{200E} \u{202E}txt.exe\u{2066}x\u{2069}\u{061C}"),
                       "שלום txt.exex")
        XCTAssertEqual(UnsafeCharacters.cleaned("esc \u{1B}]0;t\u{07} csi \u{9B}2J del\u{7F}"), "esc ]0;t csi 2J del")
        let fine = "Entwurf: Mittagessen — ✓ مرحبا 日本語 👩‍👩‍👧"
        XCTAssertEqual(UnsafeCharacters.cleaned(fine), fine)
        XCTAssertFalse(UnsafeCharacters.occur(in: UnsafeCharacters.cleaned("\u{0}\u{1F}\u{80}\u{9F}\u{2028}")))
    }

    func testACleanedSummaryPassesTheServicesCheck() throws {
        let titles = ["Re: \u{200F}مرحبا\tand\nmore", String(repeating: "é", count: 3000) + "\n",
                      String(repeating: "👩‍👩‍👧", count: 400)]
        for title in titles {
            XCTAssertThrowsError(try ActivitySummary.checkTitle(title))
            let cleaned = ActivitySummary(activityType: "a.b", title: title).cleaned
            XCTAssertNoThrow(try ActivitySummary(record: cleaned.record), title.prefix(20).debugDescription)
            XCTAssertLessThanOrEqual(cleaned.title?.utf8.count ?? 0, UserActivityPayload.maximumFieldLength)
            XCTAssertTrue(UnsafeCharacters.cleaned(title).hasPrefix(cleaned.title ?? "-"), "cut between whole characters")
        }
        XCTAssertEqual(ActivitySummary(activityType: "a.b", title: "Re: \u{200F}مرحبا\tand\nmore").cleaned.title,
                       "Re: مرحبا and more")
        XCTAssertNil(ActivitySummary(activityType: "a.b").cleaned.title)
    }
}
