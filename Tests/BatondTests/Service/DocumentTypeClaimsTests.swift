@testable import batond
import XCTest

final class DocumentTypeClaimsTests: XCTestCase {
    private let editing = "org.example.texteditor.editing"

    func testPairsOfClaimedActivityTypesCount() {
        let claims = DocumentTypeClaims("text/markdown:\(editing); Text/Plain:\(editing);;",
                                        claimedActivityTypes: [editing])
        XCTAssertEqual(claims.pairs, ["text/markdown:\(editing)", "text/plain:\(editing)"])
        XCTAssertEqual(claims.activityType(forDocumentOf: "TEXT/plain"), editing)
        XCTAssertNil(claims.activityType(forDocumentOf: "image/png"))
        XCTAssertEqual(claims.problems, [])
    }

    func testAPairCannotNameAnUnclaimedTypeOrBeMalformed() {
        let claims = DocumentTypeClaims("text/plain:com.evil.steal;markdown:\(editing);text/x-c\(editing);a/b/c:\(editing);text/plain:\(editing)",
                                        claimedActivityTypes: [editing])
        XCTAssertEqual(claims.pairs, ["text/plain:\(editing)"])
        XCTAssertEqual(claims.problems.count, 4, "\(claims.problems)")
        XCTAssertTrue(claims.problems[0].contains("X-Baton-ActivityTypes does not claim"), claims.problems[0])
        XCTAssertTrue(claims.problems[1].contains("is not MIME-TYPE:ACTIVITY-TYPE"), claims.problems[1])
    }

    func testAMIMETypeGetsOneActivityType() {
        let other = "org.example.texteditor.reading"
        let claims = DocumentTypeClaims("text/plain:\(editing);text/plain:\(other)", claimedActivityTypes: [editing, other])
        XCTAssertEqual(claims.pairs, ["text/plain:\(editing)"])
        XCTAssertEqual(claims.problems.count, 1)
    }

    func testNoKeyIsNoClaims() {
        let claims = DocumentTypeClaims(nil, claimedActivityTypes: [editing])
        XCTAssertEqual(claims.pairs, [])
        XCTAssertEqual(claims.problems, [])
    }
}
