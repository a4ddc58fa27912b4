import Foundation
import XCTest

@testable import batond

/// The desktop's recent list as Evince 43 and gedit 44 write it (their lines copied from
/// `recently-used.xbel` after opening a file in each, here), and hostile lists.
final class RecentListTests: XCTestCase {
    private var home: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("recent-\(UUID().uuidString)/home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Docs"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: home.deletingLastPathComponent())
    }

    private func bookmark(_ path: String, app: String = "gedit", exec: String = "&apos;gedit %u&apos;",
                          mime: String = "text/plain", at stamp: String = "2026-11-28T00:01:03Z", extra: String = "") -> String {
        RecentListXML.bookmark(href: URL(fileURLWithPath: path).absoluteString, app: app, exec: exec, mime: mime, stamp: stamp,
                               extra: extra)
    }

    private func list(_ bookmarks: [String]) -> [UInt8] {
        Array(RecentListXML.list(bookmarks).utf8)
    }

    private func file(_ relative: String, bytes: Int = 6) throws -> String {
        let url = home.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: bytes).write(to: url)
        return url.path
    }

    func testEvinceAndGeditEntriesAreReadNewestFirstWithTheirApps() throws {
        let notes = try file("Docs/notes.txt")
        let report = try file("Docs/report.pdf")
        let read = try RecentList.parse(list([
            bookmark(notes),
            bookmark(report, app: "Document Viewer", exec: "&apos;evince %u&apos;", mime: "application/pdf",
                     at: "2026-11-28T00:01:17Z"),
        ]), home: home)
        XCTAssertEqual(read.entries.map(\.path), [report, notes])
        XCTAssertEqual(read.entries.first?.appName, "Document Viewer")
        XCTAssertEqual(read.entries.first?.program, "evince", "GTK's quoted command still names its program")
        XCTAssertEqual(read.entries.last?.program, "gedit")
        XCTAssertEqual(read.entries.first?.mimeType, "application/pdf")
        XCTAssertEqual(read.entries.first?.usedAt, 1_795_824_077)
    }

    func testWhatMayNotBeOfferedIsLeftOut() throws {
        let hidden = try file(".secret/keys.txt")
        let big = try file("Docs/big.iso", bytes: 0)
        try FileHandle(forWritingTo: URL(fileURLWithPath: big)).truncate(atOffset: UInt64(RecentList.maximumDocumentSize + 1))
        let fifo = home.appendingPathComponent("Docs/pipe").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let target = try file("Docs/real.txt")
        let link = home.appendingPathComponent("Docs/link.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString).txt")
        try Data("x".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        let kept = try file("Docs/kept.txt")
        let read = try RecentList.parse(list([
            bookmark(hidden), bookmark(big), bookmark(fifo), bookmark(link), bookmark(outside.path),
            bookmark(try file("Docs/private.txt"), extra: "\n        <bookmark:private/>"),
            bookmark(try file("Docs/control.txt"), app: "evil&#x1b;[2J"),
            bookmark(home.appendingPathComponent("Docs/gone.txt").path),
            bookmark(kept),
        ]), home: home)
        XCTAssertEqual(read.entries.map(\.path), [kept], "hidden, too big, a FIFO, a link, outside home, private, control characters, missing: none")
    }

    func testBidirectionalOverridesLineSeparatorsAndLongNamesAreLeftOut() throws {
        let kept = try file("Docs/kept.txt")
        let read = try RecentList.parse(list([
            bookmark(try file("Docs/report\u{202E}fdp.exe"), at: "2026-11-28T00:02:00Z"),
            bookmark(try file("Docs/next\u{85}line.txt"), at: "2026-11-28T00:02:00Z"),
            bookmark(try file("Docs/separator.txt"), app: "gedit\u{2028}now", at: "2026-11-28T00:02:00Z"),
            bookmark(try file("Docs/isolate.txt"), app: "\u{2067}tideg", at: "2026-11-28T00:02:00Z"),
            bookmark(try file("Docs/long-app.txt"), app: String(repeating: "g", count: RecentList.maximumNameLength + 1),
                     at: "2026-11-28T00:02:00Z"),
            bookmark(try file("Docs/long-command.txt"), exec: "gedit " + String(repeating: "x", count: RecentList.maximumCommandLength),
                     at: "2026-11-28T00:02:00Z"),
            bookmark(kept),
        ]), home: home)
        XCTAssertEqual(read.entries.map(\.path), [kept], "no entry a published title could not hold")
    }

    func testAnEmptyFileIsNotAnEmptyList() throws {
        // What a list rewritten in place holds for a moment: not a list the person emptied.
        XCTAssertThrowsError(try RecentList.parse([], home: home))
        let url = home.appendingPathComponent("recently-used.xbel")
        FileManager.default.createFile(atPath: url.path, contents: Data())
        XCTAssertThrowsError(try RecentList.read(url, home: home))
    }

    func testAHostileListReadsAsAnErrorOrNothing() throws {
        XCTAssertThrowsError(try RecentList.parse(Array("<xbel><bookmark href=".utf8), home: home))
        XCTAssertThrowsError(try RecentList.parse([UInt8](repeating: 0x3C, count: RecentList.maximumListSize + 1), home: home)) {
            XCTAssertEqual($0 as? RecentListError, .tooLarge(RecentList.maximumListSize + 1))
        }
        XCTAssertEqual(try RecentList.parse(list([]), home: home).entries, [])
        let remote = bookmark("/x").replacingOccurrences(of: "file:///x", with: "sftp://host/x")
        XCTAssertEqual(try RecentList.parse(list([remote]), home: home).entries, [])
    }

    func testTheListFileIsNotFollowedThroughALinkAndAMissingOneIsEmpty() throws {
        let folder = home.deletingLastPathComponent()
        XCTAssertEqual(try RecentList.read(folder.appendingPathComponent("none.xbel"), home: home).entries, [])
        let real = folder.appendingPathComponent("real.xbel")
        try Data(list([bookmark(try file("Docs/a.txt"))])).write(to: real)
        XCTAssertEqual(try RecentList.read(real, home: home).entries.count, 1)
        let link = folder.appendingPathComponent("link.xbel")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        XCTAssertThrowsError(try RecentList.read(link, home: home))
        let fifo = folder.appendingPathComponent("fifo.xbel").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try RecentList.read(URL(fileURLWithPath: fifo), home: home), "a FIFO is refused without blocking")
    }

    func testOnlyTheNewestEntriesAreCheckedAndAHundredThousandCostLittle() throws {
        func entries(_ count: Int) -> [String] {
            (0..<count).map { bookmark(home.appendingPathComponent("Docs/missing-\($0).txt").path) }
        }
        let many = list(entries(5_000))
        XCTAssertLessThanOrEqual(many.count, RecentList.maximumListSize)
        let started = Date()
        _ = try RecentList.parse(many, home: home)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 2, "a list at the size limit reads in bounded time")
        print("a \(many.count)-byte recent list read in \(String(format: "%.3f", seconds)) s")
        let huge = list(entries(100_000))
        XCTAssertThrowsError(try RecentList.parse(huge, home: home), "100 000 entries are over the size limit and not read")
    }
}
