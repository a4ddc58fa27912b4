import Baton
import BatonTesting
import Foundation
import XCTest

@MainActor
final class TraceTests: XCTestCase {
    /// Removes `path` when the test ends.
    private func removeAtTearDown(_ path: String) {
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A center tracing to a fresh file.
    private func tracedCenter(_ name: String = #function) throws -> (ActivityCenter, ManualScheduler, String) {
        let (center, scheduler) = ResponderChainBuilder.center()
        let path = temporaryPath(name.filter { $0.isLetter || $0.isNumber })
        removeAtTearDown(path)
        center.trace = try ActivityTrace(path: path)
        return (center, scheduler, path)
    }

    /// The trace's lines as JSON objects.
    private func records(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertTrue(data.isEmpty || data.last == UInt8(ascii: "\n"), "each line is finished", file: file, line: line)
        let text = try XCTUnwrap(String(data: data, encoding: .utf8), file: file, line: line)
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try XCTUnwrap(object as? [String: Any], "a JSON object per line: \(line)")
        }
    }

    private func events(_ records: [[String: Any]]) -> [String] {
        records.map { ($0["event"] as? String) ?? "?" }
    }

    /// Numbers JSON cannot hold are written as strings: the line is never dropped.
    func testNonFiniteNumbersStillGiveALine() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let activity = UserActivity(activityType: "org.example.numbers", center: center)
        activity.userInfo = ["ratio": .double(.nan), "limit": .double(.infinity)]
        activity.needsSave = true
        scheduler.runUntilIdle()
        let updated = try XCTUnwrap(records(path).first { $0["event"] as? String == "updated" })
        let info = try XCTUnwrap(updated["userInfo"] as? [String: Any])
        XCTAssertEqual(info["ratio"] as? String, "NaN")
        XCTAssertEqual(info["limit"] as? String, "Infinity")
    }

    /// Title and eligibility changes reach observers but are not trace events.
    func testSummaryChangesAreNotTraced() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let activity = UserActivity(activityType: "org.example.summary", center: center)
        activity.becomeCurrent()
        var observed: [String] = []
        let observation = center.addObserver { observed.append($0.name) }
        defer { observation.cancel() }
        activity.title = "Renamed"
        scheduler.runUntilIdle()
        XCTAssertEqual(observed, ["changed"])
        XCTAssertEqual(events(try records(path)), ["current"])
    }

    func testCurrentUpdatedResignedInvalidated() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let owner = RecordingResponder(entries: ["to": "bob@example.org", "cursor": 12])
        owner.nextResponder = responders[0]
        window.firstResponder = owner
        let activity = UserActivity(activityType: "org.example.mail.compose", center: center)
        activity.title = "Draft: Lunch?"
        activity.userInfo = ["stale": true]
        owner.userActivity = activity
        center.mainWindow = window
        scheduler.runUntilIdle()

        var lines = try records(path)
        XCTAssertEqual(events(lines), ["current"], "written at once, before anything closes the file")

        activity.needsSave = true
        scheduler.runUntilIdle()
        owner.userActivity = nil
        scheduler.runUntilIdle()

        lines = try records(path)
        XCTAssertEqual(events(lines), ["current", "updated", "resigned", "invalidated"])
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        for record in lines {
            XCTAssertEqual(record["type"] as? String, "org.example.mail.compose")
            XCTAssertEqual(record["title"] as? String, "Draft: Lunch?")
            XCTAssertEqual((record["pid"] as? NSNumber)?.intValue, pid)
        }
        let updated = lines[1]
        let userInfo = try XCTUnwrap(updated["userInfo"] as? [String: Any])
        XCTAssertEqual(userInfo.count, 2, "the userInfo after the pass: \(userInfo)")
        XCTAssertEqual(userInfo["to"] as? String, "bob@example.org")
        XCTAssertEqual((userInfo["cursor"] as? NSNumber)?.intValue, 12)
        XCTAssertNil(userInfo["stale"])
        XCTAssertNil(lines[0]["userInfo"], "current carries no userInfo")
        XCTAssertNil(lines[0]["error"])
    }

    func testResignedWhenAnotherBecomesCurrentAndTitleIsOmittedWhenNil() async throws {
        let (center, _, path) = try tracedCenter()
        let first = UserActivity(activityType: "test.first", center: center)
        let second = UserActivity(activityType: "test.second", center: center)
        first.becomeCurrent()
        second.becomeCurrent()
        second.resignCurrent()
        let lines = try records(path)
        XCTAssertEqual(events(lines), ["current", "resigned", "current", "resigned"])
        XCTAssertEqual(lines.map { $0["type"] as? String }, ["test.first", "test.first", "test.second", "test.second"])
        for record in lines {
            XCTAssertNil(record["title"], "no title key when the title is nil")
            XCTAssertNotNil(record["pid"])
        }
    }

    func testUpdatedUserInfoUsesJSONForms() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let uuid = UUID()
        let activity = UserActivity(activityType: "test.forms", center: center)
        activity.userInfo = [
            "date": .date(Date(timeIntervalSinceReferenceDate: 10.5)), "data": .data(Data([1, 2, 3])),
            "url": .url(try XCTUnwrap(URL(string: "https://example.org/p"))), "uuid": .uuid(uuid),
            "list": [1, nil, "x"], "flag": false,
        ]
        activity.needsSave = true   // no owners: the userInfo is kept, and still traced
        scheduler.runUntilIdle()
        let lines = try records(path)
        XCTAssertEqual(events(lines), ["updated"])
        let userInfo = try XCTUnwrap(lines.first?["userInfo"] as? [String: Any])
        XCTAssertEqual((userInfo["date"] as? NSNumber)?.doubleValue, 10.5)
        XCTAssertEqual(userInfo["data"] as? String, "AQID")
        XCTAssertEqual(userInfo["url"] as? String, "https://example.org/p")
        XCTAssertEqual(userInfo["uuid"] as? String, uuid.uuidString)
        XCTAssertEqual((userInfo["flag"] as? NSNumber)?.boolValue, false)
        let list = try XCTUnwrap(userInfo["list"] as? [Any])
        XCTAssertEqual(list.count, 3)
        XCTAssertTrue(list[1] is NSNull)
    }

    func testContinuationEvents() async throws {
        let (center, _, path) = try tracedCenter()
        let application = Application(center: center)
        let delegate = RecordingApplicationDelegate()
        delegate.restorables = [RecordingResponder()]
        delegate.restoreLater = true
        application.delegate = delegate

        let continuation = application.beginContinuation(activityType: "test.compose")
        let activity = UserActivity(activityType: "test.compose", center: center)
        activity.title = "Incoming"
        activity.userInfo = ["cursor": 3]
        continuation.complete(with: activity)
        XCTAssertEqual(events(try records(path)), ["will-continue", "continued"])
        delegate.runPendingRestoration()

        let lines = try records(path)
        XCTAssertEqual(events(lines), ["will-continue", "continued", "restored"])
        XCTAssertEqual(lines.map { $0["type"] as? String }, ["test.compose", "test.compose", "test.compose"])
        XCTAssertNil(lines[0]["title"], "will-continue has no activity yet")
        XCTAssertEqual(lines[1]["title"] as? String, "Incoming")
        XCTAssertEqual(((lines[1]["userInfo"] as? [String: Any])?["cursor"] as? NSNumber)?.intValue, 3)
        XCTAssertEqual(((lines[2]["userInfo"] as? [String: Any])?["cursor"] as? NSNumber)?.intValue, 3)
        XCTAssertNil(lines[1]["error"])
    }

    func testFailedEventCarriesErrorAndCode() async throws {
        let (center, _, path) = try tracedCenter()
        let application = Application(center: center)
        let first = application.beginContinuation(activityType: "test.first")
        let second = application.beginContinuation(activityType: "test.second")
        second.fail(with: UserActivityError.connectionUnavailable("no route"))
        let third = application.beginContinuation(activityType: "test.third")
        third.fail(with: CocoaError(.fileReadNoSuchFile))

        let lines = try records(path)
        XCTAssertEqual(events(lines), ["will-continue", "failed", "will-continue", "failed", "will-continue", "failed"])
        XCTAssertEqual(lines[1]["type"] as? String, "test.first")
        XCTAssertEqual(lines[1]["error"] as? String, UserActivityError.cancelled.description)
        XCTAssertEqual((lines[1]["code"] as? NSNumber)?.intValue, 3072)
        XCTAssertEqual(lines[3]["type"] as? String, "test.second")
        XCTAssertEqual(lines[3]["error"] as? String, UserActivityError.connectionUnavailable("no route").description)
        XCTAssertEqual((lines[3]["code"] as? NSNumber)?.intValue, 4609)
        XCTAssertEqual(lines[5]["type"] as? String, "test.third")
        XCTAssertNotNil(lines[5]["error"] as? String)
        XCTAssertNil(lines[5]["code"], "no code for an error that is not a UserActivityError")
        withExtendedLifetime(first) {}
    }

    func testDroppedContinuationTracesFailedCancelled() async throws {
        let (center, _, path) = try tracedCenter()
        let application = Application(center: center)
        _ = application.beginContinuation(activityType: "test.dropped")
        let lines = try records(path)
        XCTAssertEqual(events(lines), ["will-continue", "failed"])
        XCTAssertEqual((lines.last?["code"] as? NSNumber)?.intValue, 3072)
    }

    func testWasContinuedViaReportContinued() async throws {
        let (center, _, path) = try tracedCenter()
        let activity = UserActivity(activityType: "test.sent", center: center)
        activity.title = "Sent"
        let delegate = RecordingActivityDelegate()
        activity.delegate = delegate
        center.reportContinued(activity)
        XCTAssertEqual(delegate.wasContinuedCount, 1)
        let lines = try records(path)
        XCTAssertEqual(events(lines), ["was-continued"])
        XCTAssertEqual(lines.first?["type"] as? String, "test.sent")
        XCTAssertEqual(lines.first?["title"] as? String, "Sent")
    }

    func testTraceFileIsCreatedWithMode0600() async throws {
        let (center, _, path) = try tracedCenter()
        UserActivity(activityType: "test.mode", center: center).becomeCurrent()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let mode = try XCTUnwrap(attributes[.posixPermissions] as? NSNumber).intValue
        XCTAssertEqual(mode & 0o777, 0o600)
    }

    /// An existing trace file readable by others is made 0600 when opened: the trace holds
    /// what the user typed.
    func testAnExistingTraceFileIsMadePrivate() async throws {
        let path = temporaryPath("widened")
        removeAtTearDown(path)
        try Data().write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let (center, _) = ResponderChainBuilder.center()
        center.trace = try ActivityTrace(path: path)
        UserActivity(activityType: "test.private", center: center).becomeCurrent()
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(mode.intValue & 0o777, 0o600)
        XCTAssertEqual(events(try records(path)), ["current"])
    }

    /// A symbolic link at the trace path is refused with a clear error: nothing is written
    /// through it and its target keeps its mode.
    func testASymlinkAtTheTracePathIsRefused() async throws {
        let target = temporaryPath("target")
        let path = temporaryPath("link")
        removeAtTearDown(target)
        removeAtTearDown(path)
        try Data("untouched\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        XCTAssertThrowsError(try ActivityTrace(path: path)) { error in
            let message = (error as? CocoaError)?.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
            XCTAssertTrue(message.contains("symbolic link") && message.contains(path), message)
        }
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "untouched\n")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(mode.intValue & 0o777, 0o644, "the link's target keeps its mode")
    }

    func testTraceAppendsAndTwoTracesShareAFile() async throws {
        let path = temporaryPath("shared")
        removeAtTearDown(path)
        try Data("{\"event\":\"earlier\",\"type\":\"x\",\"pid\":1}\n".utf8).write(to: URL(fileURLWithPath: path))
        let (first, _) = ResponderChainBuilder.center()
        let (second, _) = ResponderChainBuilder.center()
        first.trace = try ActivityTrace(path: path)
        second.trace = try ActivityTrace(path: path)
        XCTAssertEqual(first.trace?.path, path)
        UserActivity(activityType: "test.one", center: first).becomeCurrent()
        UserActivity(activityType: "test.two", center: second).becomeCurrent()
        UserActivity(activityType: "test.three", center: first).becomeCurrent()
        let lines = try records(path)
        XCTAssertEqual(lines.map { $0["type"] as? String }, ["x", "test.one", "test.two", "test.one", "test.three"])
        XCTAssertEqual(events(lines), ["earlier", "current", "current", "resigned", "current"])
    }

    func testTraceInMissingDirectoryThrows() async throws {
        XCTAssertThrowsError(try ActivityTrace(path: "/nonexistent-baton-dir/\(UUID().uuidString)/trace.jsonl")) { error in
            XCTAssertTrue(error is CocoaError, "\(error)")
        }
    }

    /// Every line carries `time`: wall-clock seconds since 1970 as a JSON number, to the
    /// millisecond, taken as the event happens, so lines further down never go back.
    func testEveryRecordCarriesItsTimeInMilliseconds() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let before = Date().timeIntervalSince1970
        let activity = UserActivity(activityType: "test.timed", center: center)
        activity.becomeCurrent()
        activity.needsSave = true
        scheduler.runUntilIdle()
        usleep(20_000)
        let application = Application(center: center)
        let continuation = application.beginContinuation(activityType: "test.timed")
        continuation.fail(with: UserActivityError.connectionUnavailable("gone"))
        activity.invalidate()
        let after = Date().timeIntervalSince1970

        let lines = try records(path)
        XCTAssertEqual(events(lines), ["current", "updated", "will-continue", "failed", "resigned", "invalidated"])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var previous = -Double.infinity
        for (record, line) in zip(lines, text.split(separator: "\n")) {
            let number = try XCTUnwrap(record["time"] as? NSNumber, "a time on every line: \(line)")
            XCTAssertNotEqual(String(cString: number.objCType), "c", "a number, not true or false: \(line)")
            let time = number.doubleValue
            XCTAssertNotNil(line.range(of: #""time":\d+(\.\d{1,3})?[,}]"#, options: .regularExpression),
                            "a plain JSON number of seconds with at most 3 decimals: \(line)")
            XCTAssertEqual((time * 1000).rounded(), time * 1000, accuracy: 1e-3, "to the millisecond: \(time)")
            XCTAssertGreaterThanOrEqual(time, before - 0.001, "not before the test began: \(line)")
            XCTAssertLessThanOrEqual(time, after + 0.001, "not after the test ended: \(line)")
            XCTAssertGreaterThanOrEqual(time, previous, "never earlier than the line before: \(line)")
            previous = time
        }
        XCTAssertEqual(lines.first.flatMap { ($0["pid"] as? NSNumber)?.intValue },
                       Int(ProcessInfo.processInfo.processIdentifier), "the other fields are unchanged")
        let first = try XCTUnwrap((lines.first?["time"] as? NSNumber)?.doubleValue)
        XCTAssertGreaterThanOrEqual(previous - first, 0.019, "the 20 ms pause shows between the first and last lines")
    }

    func testClearingTraceStopsWriting() async throws {
        let (center, scheduler, path) = try tracedCenter()
        let activity = UserActivity(activityType: "test.quiet", center: center)
        activity.becomeCurrent()
        center.trace = nil
        activity.needsSave = true
        scheduler.runUntilIdle()
        activity.invalidate()
        XCTAssertEqual(events(try records(path)), ["current"])
    }
}
