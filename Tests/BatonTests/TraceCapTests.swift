import Baton
import BatonTesting
import Foundation
import XCTest

/// A trace line holds at most 16 KiB of `userInfo`: an app that keeps a whole document in its
/// activity does not write it all at every update pass (860 KB a keystroke was seen).
@MainActor
final class TraceCapTests: XCTestCase {
    private func tracedCenter(_ name: String = #function) throws -> (ActivityCenter, ManualScheduler, String) {
        let (center, scheduler) = ResponderChainBuilder.center()
        let path = temporaryPath(name.filter { $0.isLetter || $0.isNumber })
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        center.trace = try ActivityTrace(path: path)
        return (center, scheduler, path)
    }

    private func lines(_ path: String) throws -> [(text: Substring, object: [String: Any])] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            (line, try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
        }
    }

    func testALongTextIsCutAndTheLineSaysSo() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let activity = UserActivity(activityType: "test.long", center: center)
        let body = String(repeating: "é", count: 400_000)   // 800 000 bytes
        activity.userInfo = ["body": .string(body), "cursor": 12, "image": .data(Data(count: 100_000))]
        activity.needsSave = true
        scheduler.runUntilIdle()
        let line = try XCTUnwrap(try lines(path).first)
        XCTAssertLessThan(line.text.utf8.count, 4096, "a short line, not the whole text")
        let userInfo = try XCTUnwrap(line.object["userInfo"] as? [String: Any])
        let cutBody = try XCTUnwrap(userInfo["body"] as? String)
        XCTAssertTrue(cutBody.hasPrefix("éé") && cutBody.hasSuffix("…"), "the text's start, then …")
        XCTAssertLessThanOrEqual(cutBody.utf8.count, 1024 + 3)
        XCTAssertEqual((userInfo["cursor"] as? NSNumber)?.intValue, 12, "small values are kept whole")
        XCTAssertEqual((userInfo["image"] as? String).flatMap { Data(base64Encoded: $0) }?.count, 768)
        XCTAssertEqual(line.object["userInfoCut"] as? Bool, true)
        XCTAssertEqual(activity.userInfo["body"], .string(body), "the activity itself keeps it all")
    }

    func testTooManySmallValuesLeaveOnlyTheKeys() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let activity = UserActivity(activityType: "test.many", center: center)
        var rows: [UserInfoValue] = []
        for index in 0..<100 { rows.append(.string(String(repeating: "x", count: 1000) + "\(index)")) }
        activity.userInfo = ["rows": .array(rows), "title": "Groceries"]
        activity.needsSave = true
        scheduler.runUntilIdle()
        let line = try XCTUnwrap(try lines(path).first)
        XCTAssertLessThan(line.text.utf8.count, 2048)
        XCTAssertNil(line.object["userInfo"])
        XCTAssertEqual(line.object["userInfoKeys"] as? [String], ["rows", "title"])
        XCTAssertEqual(line.object["userInfoCut"] as? Bool, true)
    }

    func testASmallUserInfoIsWrittenWhole() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let activity = UserActivity(activityType: "test.small", center: center)
        activity.userInfo = ["to": "bob@example.org", "body": .string(String(repeating: "a", count: 1024))]
        activity.needsSave = true
        scheduler.runUntilIdle()
        let line = try XCTUnwrap(try lines(path).first)
        XCTAssertEqual((line.object["userInfo"] as? [String: Any])?["body"] as? String, String(repeating: "a", count: 1024))
        XCTAssertNil(line.object["userInfoCut"], "nothing cut, nothing said")
    }
}
