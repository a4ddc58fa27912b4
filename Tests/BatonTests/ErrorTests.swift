import Baton
import Foundation
import XCTest

@MainActor
final class ErrorTests: XCTestCase {

    func testAppleCodes() async throws {
        XCTAssertEqual(UserActivityError.cancelled.code, 3072)
        XCTAssertEqual(UserActivityError.handoffFailed("x").code, 4608)
        XCTAssertEqual(UserActivityError.connectionUnavailable("x").code, 4609)
        XCTAssertEqual(UserActivityError.remoteApplicationTimedOut("x").code, 4610)
        XCTAssertEqual(UserActivityError.userInfoTooLarge(size: 70_000, limit: 65_536).code, 4611)
    }

    func testBatonCodesFollowApplesInTheSameRange() async throws {
        let codes = [
            UserActivityError.invalidWebpageURL("ftp://x").code,
            UserActivityError.invalidUserInfo("x").code,
            UserActivityError.malformedPayload("x").code,
        ]
        XCTAssertEqual(codes, [4640, 4641, 4642])
        let apple: Set = [3072, 4608, 4609, 4610, 4611]
        XCTAssertTrue(apple.isDisjoint(with: codes), "Baton's codes never reuse Apple's")
    }

    func testDescriptions() async throws {
        let expected: [(UserActivityError, String)] = [
            (.cancelled, "the continuation was cancelled"),
            (.handoffFailed("no peer"), "handoff failed: no peer"),
            (.connectionUnavailable("bluetooth off"), "the activity's origin could not be reached: bluetooth off"),
            (.remoteApplicationTimedOut("5 s"), "an app did not answer in time: 5 s"),
            (.userInfoTooLarge(size: 70_000, limit: 65_536),
             "userInfo is 70000 bytes encoded, over the limit of 65536 bytes"),
            (.invalidWebpageURL("ftp://example.org"),
             "invalid webpage URL \"ftp://example.org\": a webpage URL is an absolute http or https URL of at most 4096 bytes"),
            (.invalidUserInfo("key \"to\" is missing"), "invalid userInfo: key \"to\" is missing"),
            (.malformedPayload("truncated"), "malformed activity payload: truncated"),
        ]
        for (error, text) in expected {
            XCTAssertEqual(error.description, text)
            XCTAssertEqual(String(describing: error), text)
            XCTAssertEqual(error.errorDescription, text)
            XCTAssertEqual((error as any Error).localizedDescription, text)
        }
    }

    func testDescriptionsNameTheirDetails() async throws {
        XCTAssertTrue(UserActivityError.handoffFailed("REASON-1").description.contains("REASON-1"))
        XCTAssertTrue(UserActivityError.connectionUnavailable("REASON-2").description.contains("REASON-2"))
        XCTAssertTrue(UserActivityError.remoteApplicationTimedOut("REASON-3").description.contains("REASON-3"))
        let tooLarge = UserActivityError.userInfoTooLarge(size: 123_456, limit: 65_536).description
        XCTAssertTrue(tooLarge.contains("123456") && tooLarge.contains("65536"), tooLarge)
    }

    func testEquality() async throws {
        XCTAssertEqual(UserActivityError.cancelled, .cancelled)
        XCTAssertNotEqual(UserActivityError.handoffFailed("a"), .handoffFailed("b"))
        XCTAssertNotEqual(UserActivityError.handoffFailed("a"), .connectionUnavailable("a"))
        XCTAssertEqual(UserActivityError.userInfoTooLarge(size: 1, limit: 2), .userInfoTooLarge(size: 1, limit: 2))
        XCTAssertNotEqual(UserActivityError.userInfoTooLarge(size: 1, limit: 2), .userInfoTooLarge(size: 2, limit: 2))
        let set: Set<UserActivityError> = [.cancelled, .cancelled, .malformedPayload("x")]
        XCTAssertEqual(set.count, 2)
    }

    func testThrownErrorsCarryTheirCodes() async throws {
        do {
            _ = try UserActivityPayload(decoding: Data("nope".utf8))
            XCTFail("expected a throw")
        } catch let error as UserActivityError {
            XCTAssertEqual(error.code, 4642)
        }
        do {
            _ = try UserActivityPayload(activityType: "t", userInfo: ["x": .data(Data(count: 70_000))]).encoded()
            XCTFail("expected a throw")
        } catch let error as UserActivityError {
            XCTAssertEqual(error.code, 4611)
        }
    }
}
