import Foundation
import ServiceFixtures
import XCTest

/// A real batond following a recent list made hostile: rewritten while it reads it, huge,
/// malformed, with control characters in its entries, with 100 000 entries, a link, a FIFO.
/// Each time it keeps answering, offers nothing it should not, costs bounded CPU time and
/// memory (measured from `/proc`, printed), and offers again once a valid list is written.
///
/// batond runs with a home of its own and no `DISPLAY`, so it chooses by recency: the most
/// recent entry, used within 10 minutes, of a running program. That program is `sleep`, run
/// by the test; the lists name it as the app.
final class RecentListHostileTests: ServiceTestCase {
    private var home: URL { session.root.appendingPathComponent("home") }
    private var listFile: URL { session.dataHome.appendingPathComponent("recently-used.xbel") }
    private var program: ChildProcess?
    /// The valid list first offered, naming `start.txt`.
    private var startList = ""

    /// The most CPU time batond may spend on one hostile list, with the valid ones around it.
    private let cpuBound = 3.0
    /// How much batond's peak resident memory may grow through one hostile list.
    private let peakGrowthBound = 48 << 10

    override func prepare(_ session: ServiceSession) throws {
        try session.useOwnHomeWithoutDisplay()
    }

    override func tearDown() {
        program?.stop()
        super.tearDown()
    }

    // MARK: Helpers

    /// A file in the home's `Docs` folder, made if missing.
    @discardableResult
    private func document(_ name: String) throws -> String {
        let url = home.appendingPathComponent("Docs").appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: url.path) { try Data("notes\n".utf8).write(to: url) }
        return url.path
    }

    private func validList(naming name: String, at date: Date = Date()) throws -> String {
        RecentListXML.list([RecentListXML.bookmark(try document(name), app: "sleep", exec: "&apos;sleep %u&apos;", at: date)])
    }

    /// The titles batond lists as its own offers from the recent list.
    private func offered() throws -> [String] {
        try activities().filter { $0["source"] as? String == "recent list" }.compactMap { $0["title"] as? String }
    }

    /// The listing id of the offer titled `title`, once batond lists it.
    private func waitForOffer(_ name: String, timeout: TimeInterval = 10) -> String? {
        var id: String?
        _ = waitUntil(timeout: timeout) {
            id = try activities().first { $0["title"] as? String == "\(name) — sleep" }?["id"] as? String
            return id != nil
        }
        return id
    }

    /// Starts the program the lists name, writes a valid list naming `start.txt`, and waits
    /// until batond offers it.
    private func startOffering() throws {
        program = try session.start(URL(fileURLWithPath: "/bin/sleep"), ["600"], name: "sleep")
        startList = try validList(naming: "start.txt")
        try RecentListXML.replace(startList, at: listFile)
        XCTAssertNotNil(waitForOffer("start.txt"), "batond offers the valid list's document: \(batond.log.suffix(2000))")
    }

    /// batond's CPU time (user and system, seconds) and peak resident memory (`VmHWM`, KiB).
    private func cost() throws -> (cpu: Double, peak: Int) {
        let stat = try String(contentsOfFile: "/proc/\(batond.pid)/stat", encoding: .utf8)
        let fields = try XCTUnwrap(stat.range(of: ")", options: .backwards)).upperBound
        let parts = stat[fields...].split(separator: " ")
        let ticks = try XCTUnwrap(Double(parts[11])) + XCTUnwrap(Double(parts[12]))
        let status = try String(contentsOfFile: "/proc/\(batond.pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let peak = try XCTUnwrap(Int(line.split(separator: " ")[1]))
        return (ticks / Double(sysconf(Int32(_SC_CLK_TCK))), peak)
    }

    /// Runs `hostile` (which makes the list hostile and checks what batond offers meanwhile),
    /// then writes a valid list naming `after.txt` in place and checks batond offers it; asserts
    /// batond answered throughout and what it cost.
    private func measure(_ name: String, _ hostile: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) throws {
        try startOffering()
        let before = try cost()
        try hostile()
        try assertAnswersQuickly(file: file, line: line)
        try assertNothingUnsafeOffered(file: file, line: line)
        var isFile = stat()
        if lstat(listFile.path, &isFile) == 0, isFile.st_mode & S_IFMT != S_IFREG {
            try FileManager.default.removeItem(at: listFile)
            FileManager.default.createFile(atPath: listFile.path, contents: nil)
        }
        try RecentListXML.writeInPlace(try validList(naming: "after.txt"), to: listFile)
        XCTAssertNotNil(waitForOffer("after.txt"), "a valid list offers again after \(name): \(batond.log.suffix(2000))",
                        file: file, line: line)
        let after = try cost()
        let cpu = after.cpu - before.cpu, growth = after.peak - before.peak
        print("recent list \(name): batond spent \(String(format: "%.2f", cpu)) s of CPU; peak memory \(before.peak) KiB → \(after.peak) KiB (+\(growth) KiB)")
        XCTAssertLessThan(cpu, cpuBound, "CPU time spent on \(name)", file: file, line: line)
        XCTAssertLessThan(growth, peakGrowthBound, "peak memory grown by \(name)", file: file, line: line)
        XCTAssertFalse(batond.log.contains("CRITICAL"), "GLib saw a misuse: \(batond.log.suffix(2000))", file: file, line: line)
    }

    /// batond answers `baton status` within a second.
    private func assertAnswersQuickly(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(batond.isRunning, "batond exited: \(batond.log.suffix(2000))", file: file, line: line)
        let started = Date()
        let status = try session.baton(["status"], timeout: 5)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(status.status, 0, status.errorOutput, file: file, line: line)
        XCTAssertLessThan(took, 1, "baton status took \(took) s", file: file, line: line)
    }

    /// No title batond lists holds a control character, a line separator or a bidirectional
    /// override, and nothing named "bad" is offered.
    private func assertNothingUnsafeOffered(file: StaticString = #filePath, line: UInt = #line) throws {
        for title in try activities().compactMap({ $0["title"] as? String }) {
            XCTAssertFalse(title.unicodeScalars.contains { scalar in
                scalar.properties.generalCategory == .control || [0x2028, 0x2029, 0x202E, 0x200F].contains(scalar.value)
            }, "an unsafe title is listed: \(title.debugDescription)", file: file, line: line)
            XCTAssertFalse(title.hasPrefix("bad"), "a hostile entry is offered: \(title.debugDescription)", file: file, line: line)
        }
    }

    /// Waits long enough for batond to have read the list again (it reads 0.1 s after a change).
    private func letBatondRead() {
        Thread.sleep(forTimeInterval: 0.5)
    }

    // MARK: Tests

    func testAListRewrittenWhileReadKeepsItsOffer() throws {
        try measure("rewritten for 3 s") {
            let id = try XCTUnwrap(waitForOffer("start.txt"))
            // The very same list (its times too), so only a reading of it half written could change the offer.
            let text = startList
            let bytes = Array(text.utf8)
            let deadline = Date().addingTimeInterval(3)
            var round = 0
            var seen = Set<String>()
            while Date() < deadline {
                round += 1
                if round.isMultiple(of: 2) {
                    try RecentListXML.replace(text, at: listFile)
                } else {
                    // Cut and written again in two halves: a reader in between sees half a list.
                    let handle = try FileHandle(forUpdating: listFile)
                    try handle.truncate(atOffset: 0)
                    try handle.write(contentsOf: Data(bytes.prefix(bytes.count / 2)))
                    Thread.sleep(forTimeInterval: 0.15)
                    try handle.write(contentsOf: Data(bytes.dropFirst(bytes.count / 2)))
                    try handle.close()
                }
                if round.isMultiple(of: 5) {
                    seen.formUnion(try activities().filter { $0["source"] as? String == "recent list" }.compactMap { $0["id"] as? String })
                }
            }
            letBatondRead()
            XCTAssertEqual(waitForOffer("start.txt"), id, "the offer is the same one after \(round) rewrites")
            XCTAssertEqual(seen, [id], "the same offer was listed throughout")
        }
    }

    /// The app uses the same document again (gedit saving it moves its time on): the offer
    /// stays the same one, so the other devices list and notify nothing new.
    func testTheSameDocumentUsedAgainKeepsItsOffer() throws {
        try startOffering()
        let id = try XCTUnwrap(waitForOffer("start.txt"))
        for minutes in 1...3 {
            try RecentListXML.replace(try validList(naming: "start.txt", at: Date().addingTimeInterval(Double(minutes))), at: listFile)
            letBatondRead()
            XCTAssertEqual(waitForOffer("start.txt"), id, "the offer is the same one after the document was used again")
        }
    }

    /// The person stops the list (a link to `/dev/null`, as guides suggest): its last good
    /// reading stops being offered once the grace for a list caught mid-write is over.
    func testAListStoppedByThePersonStopsItsOfferAfterTheGrace() throws {
        try startOffering()
        try FileManager.default.removeItem(at: listFile)
        try FileManager.default.createSymbolicLink(at: listFile, withDestinationURL: URL(fileURLWithPath: "/dev/null"))
        let stopped = Date()
        XCTAssertTrue(waitUntil(timeout: 10) { try self.offered().isEmpty },
                      "the old list's document is still offered: \(String(describing: try? offered()))")
        let took = Date().timeIntervalSince(stopped)
        print("recent list stopped: the offer went after \(String(format: "%.1f", took)) s")
        XCTAssertGreaterThan(took, 3, "not before the grace: a list being rewritten keeps its offer")
    }

    func testHugeListsAreNotRead() throws {
        try measure("huge") {
            // Over the reader's cap, valid up to its end.
            let bookmark = RecentListXML.bookmark(try document("bad-huge.txt"), app: "sleep", exec: "sleep %u")
            let padding = RecentListXML.bookmark(href: "file:///nowhere/padding", app: "sleep", exec: "sleep %u")
            let count = (5 << 20) / padding.utf8.count
            try RecentListXML.replace(RecentListXML.list([bookmark] + Array(repeating: padding, count: count)), at: listFile)
            letBatondRead()
            try assertNothingUnsafeOffered()
            // 200 MiB, nearly all of it a hole.
            let sparse = session.root.appendingPathComponent("sparse.xbel")
            FileManager.default.createFile(atPath: sparse.path, contents: Data(RecentListXML.list([bookmark]).utf8))
            XCTAssertEqual(truncate(sparse.path, 200 << 20), 0)
            XCTAssertEqual(rename(sparse.path, listFile.path), 0)
            letBatondRead()
            try assertNothingUnsafeOffered()
            XCTAssertTrue(batond.log.contains("not read"), "batond says why it did not read the list")
        }
    }

    func testMalformedListsOfferNothing() throws {
        try measure("malformed") {
            let bad = RecentListXML.bookmark(try document("bad-malformed.txt"), app: "sleep", exec: "sleep %u")
            var random = SystemRandomNumberGenerator()
            let lists: [[UInt8]] = [
                Array(String(RecentListXML.list([bad]).dropLast(20)).utf8),
                Array(RecentListXML.list([bad]).utf8) + Array("<bookmark href=\"".utf8),
                Array(RecentListXML.list([bad]).replacingOccurrences(of: "</xbel>", with: "</xbel><xbel>").utf8),
                Array(RecentListXML.list([bad]).utf8).map { $0 == UInt8(ascii: "t") ? 0 : $0 },
                Array(RecentListXML.list([bad]).utf8) + [0xC3, 0x28, 0xFF, 0xFE],
                Array(("<?xml version=\"1.0\"?><xbel version=\"1.0\">" + String(repeating: "<bookmark href=\"file:///a\"><info>", count: 60_000)).utf8),
                Array(("<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><xbel version=\"1.0\">&b;</xbel>").utf8),
                (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) },
                [],
            ]
            for list in lists {
                try RecentListXML.replace(String(decoding: list, as: UTF8.self), at: listFile)
                try Data(list).write(to: listFile)
                letBatondRead()
                try assertNothingUnsafeOffered()
            }
        }
    }

    func testEntriesWithControlCharactersAreNotOffered() throws {
        try measure("with control characters") {
            let exec = "&apos;sleep %u&apos;"
            let hostile = [
                RecentListXML.bookmark(try document("bad\u{1B}]0;retitled\u{07}.txt"), app: "sleep", exec: exec),
                RecentListXML.bookmark(try document("bad\u{202E}txt.exe"), app: "sleep", exec: exec),
                RecentListXML.bookmark(try document("bad\u{85}next.txt"), app: "sleep", exec: exec),
                RecentListXML.bookmark(try document("bad-escape-in-app.txt"), app: "sle&#x1B;[2Jep", exec: exec),
                RecentListXML.bookmark(try document("bad-separator-in-app.txt"), app: "sleep\u{2028}now", exec: exec),
                RecentListXML.bookmark(try document("bad-override-in-app.txt"), app: "\u{202E}peels", exec: exec),
                RecentListXML.bookmark(try document("bad-long-app.txt"), app: String(repeating: "s", count: 10_000), exec: exec),
                RecentListXML.bookmark(try document("bad-control-in-command.txt"), app: "sleep", exec: "sleep&#x7; %u"),
            ]
            let good = RecentListXML.bookmark(try document("good.txt"), app: "sleep", exec: exec, at: Date().addingTimeInterval(-60))
            try RecentListXML.replace(RecentListXML.list(hostile + [good]), at: listFile)
            XCTAssertNotNil(waitForOffer("good.txt"), "the one safe entry is offered: \((try? offered()) ?? [])")
            try assertNothingUnsafeOffered()
        }
    }

    func testAHundredThousandEntriesCostLittle() throws {
        try measure("of 100 000 entries") {
            // Short entries outside home, then one to offer: within the cap.
            let short = (0..<100_000).map { "<bookmark href=\"file:///n/\($0)\"/>" }
            let list = RecentListXML.list(short + [RecentListXML.bookmark(try document("many.txt"), app: "sleep", exec: "sleep %u")])
            XCTAssertLessThan(list.utf8.count, 4 << 20)
            try RecentListXML.replace(list, at: listFile)
            XCTAssertNotNil(waitForOffer("many.txt", timeout: 20), "the one entry to offer among 100 000: \((try? offered()) ?? [])")
            // Whole entries in home: over the cap, not read.
            let whole = try (0..<100_000).map { index -> String in
                let path = home.appendingPathComponent("Docs/bad-\(index).txt").path
                if index.isMultiple(of: 10_000) { try document("bad-\(index).txt") }
                return RecentListXML.bookmark(path, app: "sleep", exec: "sleep %u")
            }
            try RecentListXML.replace(RecentListXML.list(whole), at: listFile)
            letBatondRead()
            try assertNothingUnsafeOffered()
        }
    }

    func testAListThatIsALinkIsNotFollowed() throws {
        try measure("a link") {
            let elsewhere = session.root.appendingPathComponent("elsewhere.xbel")
            try RecentListXML.list([RecentListXML.bookmark(try document("bad-linked.txt"), app: "sleep", exec: "sleep %u")])
                .write(to: elsewhere, atomically: true, encoding: .utf8)
            try FileManager.default.removeItem(at: listFile)
            try FileManager.default.createSymbolicLink(at: listFile, withDestinationURL: elsewhere)
            letBatondRead()
            try assertNothingUnsafeOffered()
            // Its target rewritten: still not read.
            try RecentListXML.writeInPlace(RecentListXML.list([RecentListXML.bookmark(try document("bad-linked-2.txt"), app: "sleep",
                                                                                     exec: "sleep %u")]), to: elsewhere)
            letBatondRead()
            try assertNothingUnsafeOffered()
        }
    }

    func testAListThatIsAFIFODoesNotBlock() throws {
        try measure("a FIFO") {
            try FileManager.default.removeItem(at: listFile)
            XCTAssertEqual(mkfifo(listFile.path, 0o600), 0)
            letBatondRead()
            try assertAnswersQuickly()
            // A writer on the FIFO, which no reader ever drains.
            let writer = open(listFile.path, O_RDWR | O_NONBLOCK)
            XCTAssertGreaterThanOrEqual(writer, 0)
            defer { close(writer) }
            let bookmark = RecentListXML.list([RecentListXML.bookmark(try document("bad-fifo.txt"), app: "sleep", exec: "sleep %u")])
            _ = bookmark.withCString { write(writer, $0, strlen($0)) }
            utimes(listFile.path, nil)
            letBatondRead()
            try assertAnswersQuickly()
        }
    }
}
