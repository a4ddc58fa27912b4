@testable import batond
import Foundation
import Logging
import ServiceFixtures
import XCTest

/// batond's log format when its standard error is the systemd journal (`JOURNAL_STREAM`
/// naming that very stream, as systemd sets it): each line starts with its priority (`<6>`
/// info, sd-daemon(3)) and has no timestamp, which the journal adds. Anywhere else, and when
/// `JOURNAL_STREAM` names another stream, the format is swift-log's as before.
final class JournalLogTests: XCTestCase {
    private var session: ServiceSession!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        session = try ServiceSession()
        try session.startBus()
    }

    override func tearDown() {
        session?.tearDown()
    }

    /// `DEVICE:INODE` of the file at `path`, as systemd writes `JOURNAL_STREAM`.
    private func deviceAndInode(of path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FixtureError("cannot stat \(path)") }
        return "\(info.st_dev):\(info.st_ino)"
    }

    /// Runs batond with its standard error in a log file of its own until it owns its name,
    /// then stops it; its log. `journalStream` gives `JOURNAL_STREAM` for that file (`nil`:
    /// the variable is not set).
    private func runBatond(_ name: String, journalStream: (String) throws -> String?) throws -> String {
        let log = session.root.appendingPathComponent("\(name).log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        var environment = session.environment
        environment["JOURNAL_STREAM"] = try journalStream(log.path)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = ServiceSession.product("batond")
        process.arguments = ["--state-dir", session.root.appendingPathComponent("state/\(name)").path,
                             "--log-level", "debug", "--no-discovery", "--listen", "127.0.0.1:0"]
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        let started = waitUntil(timeout: 10) { text().contains("is org.baton.Daemon") || !process.isRunning }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertTrue(started, "batond did not start: \(text())")
        XCTAssertEqual(process.terminationStatus, 0, text())
        return text()
    }

    private let timestamp = /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}/

    func testWithStandardErrorInTheJournalLinesCarryPrioritiesAndNoTimestamp() throws {
        let log = try runBatond("journal") { try self.deviceAndInode(of: $0) }
        let lines = log.split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            XCTAssertNotNil(line.prefixMatch(of: /<[0-7]>/), "no priority prefix: \(line)")
            XCTAssertNil(line.firstMatch(of: timestamp), "a timestamp of its own: \(line)")
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("<6>batond ") && $0.contains(" is org.baton.Daemon") }, log)
        XCTAssertTrue(lines.contains("<6>stopping"), log)
    }

    func testWithoutJournalStreamTheFormatIsUnchanged() throws {
        let log = try runBatond("plain") { _ in nil }
        let line = try XCTUnwrap(log.split(separator: "\n").first { $0.contains("is org.baton.Daemon") }.map(String.init))
        XCTAssertNotNil(line.prefixMatch(of: timestamp), line)
        XCTAssertTrue(line.contains(" info batond: [batond] batond "), line)
        XCTAssertFalse(log.contains("<6>"), log)
    }

    func testAJournalStreamOfAnotherFileIsNotTheJournal() throws {
        let other = session.root.appendingPathComponent("other")
        XCTAssertTrue(FileManager.default.createFile(atPath: other.path, contents: nil))
        let log = try runBatond("elsewhere") { _ in try self.deviceAndInode(of: other.path) }
        XCTAssertFalse(log.contains("<6>"), log)
        XCTAssertNotNil(log.prefixMatch(of: timestamp), log)
    }

    func testPrioritiesFollowSdDaemon() {
        let expected: [(Logger.Level, Int)] = [(.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4),
                                               (.error, 3), (.critical, 2)]
        for (level, priority) in expected {
            XCTAssertEqual(JournalLogHandler.priority(of: level), priority, "\(level)")
        }
    }

    func testEveryLineOfAMessageCarriesThePriorityAndMetadataComesFirst() {
        XCTAssertEqual(JournalLogHandler.format(level: .warning, message: "one\ntwo", metadata: [:]), "<4>one\n<4>two\n")
        XCTAssertEqual(JournalLogHandler.format(level: .error, message: "failed", metadata: ["peer": "b", "app": "a"]),
                       "<3>[app=a peer=b] failed\n")
        XCTAssertEqual(JournalLogHandler.format(level: .info, message: "", metadata: [:]), "<6>\n")
    }

    func testJournalStreamMatchesOnlyThisStandardError() throws {
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { throw XCTSkip("no standard error") }
        XCTAssertTrue(JournalStream.isStandardError(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        XCTAssertFalse(JournalStream.isStandardError(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino &+ 1)"]))
        XCTAssertFalse(JournalStream.isStandardError(environment: [:]))
        for value in ["", ":", "1", "1:", "a:b", "1:2:3", "-1:2"] {
            XCTAssertNil(JournalStream.parse(value), value)
        }
        XCTAssertEqual(JournalStream.parse("64769:123456")?.inode, 123_456)
    }
}
