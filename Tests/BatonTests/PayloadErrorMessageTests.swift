import Baton
import Foundation
import XCTest

/// What the encoder refuses, it names: the place in `userInfo` of a value nested too deep,
/// and which text field is too long, each said once.
@MainActor
final class PayloadErrorMessageTests: XCTestCase {
    private func occurrences(of part: String, in text: String) -> Int {
        text.components(separatedBy: part).count - 1
    }

    func testNestingTooDeepNamesThePlace() async throws {
        var deep: UserInfoValue = "leaf"
        for _ in 0..<40 { deep = [deep] }
        let payload = UserActivityPayload(activityType: "t", userInfo: [
            "draft": ["subject": "Lunch", "to": ["a@example.org", "b@example.org", deep]], "cursor": 3,
        ])
        let error = try XCTUnwrap(catchUserActivityError { _ = try payload.encodedBytes() })
        // "draft" is at depth 0, "to" at 1, [2] at 2: 30 more levels reach depth 32.
        let place = #"userInfo["draft"]["to"][2]"# + String(repeating: "[0]", count: 30)
        XCTAssertEqual(error, .invalidUserInfo("\(place) is nested deeper than 32 levels"))
        XCTAssertEqual(error.description, "invalid userInfo: \(place) is nested deeper than 32 levels")
        XCTAssertEqual(occurrences(of: "userInfo[", in: error.description), 1, error.description)
    }

    func testATextFieldTooLongIsNamed() async throws {
        let long = String(repeating: "x", count: 5000)
        let limit = UserActivityPayload.maximumFieldLength
        let cases: [(UserActivityPayload, String)] = [
            (UserActivityPayload(activityType: "t", title: "Note: " + long), "the title is 5006 bytes"),
            (UserActivityPayload(activityType: "t." + long), "the activity type is 5002 bytes"),
            (UserActivityPayload(activityType: "t", keywords: ["short", long]), "a keyword is 5000 bytes"),
            (UserActivityPayload(activityType: "t", webpageURL: URL(string: "https://example.org/" + long)),
             "the webpage URL is 5020 bytes"),
        ]
        for (payload, what) in cases {
            let error = try XCTUnwrap(catchUserActivityError { _ = try payload.encodedBytes() })
            XCTAssertEqual(error.description, "the activity cannot be encoded: \(what), over the limit of \(limit) bytes")
            XCTAssertEqual(error.code, 4643)
        }
    }

    func testPlacesQuoteAndCutTheirKeys() async throws {
        var deep: UserInfoValue = 1
        for _ in 0..<32 { deep = ["k": deep] }
        let key = "say \"hi\" \\ " + String(repeating: "y", count: 100)
        let error = try XCTUnwrap(catchUserActivityError {
            _ = try UserActivityPayload(activityType: "t", userInfo: [key: deep]).encodedBytes()
        })
        let shown = #"say \"hi\" \\ "# + String(repeating: "y", count: UserInfoPath.maximumKeyLength - 11) + "…"
        XCTAssertTrue(error.description.hasPrefix(#"invalid userInfo: userInfo[""# + shown + #""]["k"]"#), error.description)
    }
}
