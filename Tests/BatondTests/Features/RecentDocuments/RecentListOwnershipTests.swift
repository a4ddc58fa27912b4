import CGLib
import Foundation
import XCTest

@testable import batond

/// GLib's complaints while reading the recent list (a `g_return_if_fail` is a CRITICAL in the
/// GLib domain): none. Each entry's time belongs to GLib's bookmark file; freeing it after
/// reading it (as RecentList did) freed it twice, which GLib reports as
/// "g_date_time_unref: assertion 'datetime->ref_count > 0' failed".
final class RecentListOwnershipTests: XCTestCase {
    nonisolated(unsafe) static var criticals = 0

    func testReadingAListLeavesGLibsTimesToGLib() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("recent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("notes.txt")
        try Data("notes".utf8).write(to: file)
        let stamp = "2026-11-28T00:01:03Z"
        let list = """
        <?xml version="1.0" encoding="UTF-8"?>
        <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
              xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
          <bookmark href="\(file.absoluteString)" added="\(stamp)" modified="\(stamp)" visited="\(stamp)">
            <info><metadata owner="http://freedesktop.org">
              <mime:mime-type type="text/plain"/>
              <bookmark:applications>
                <bookmark:application name="gedit" exec="&apos;gedit %u&apos;" modified="\(stamp)" count="1"/>
              </bookmark:applications>
            </metadata></info>
          </bookmark>
        </xbel>
        """
        Self.criticals = 0
        let handler = g_log_set_handler("GLib", GLogLevelFlags(rawValue: G_LOG_LEVEL_CRITICAL.rawValue | G_LOG_FLAG_FATAL.rawValue),
                                        { _, _, _, _ in RecentListOwnershipTests.criticals += 1 }, nil)
        defer { g_log_remove_handler("GLib", handler) }
        for _ in 0..<3 {
            let read = try RecentList.parse(Array(list.utf8), home: home)
            XCTAssertEqual(read.entries.map(\.usedAt), [1_795_824_063], "the time is read")
        }
        XCTAssertEqual(Self.criticals, 0, "GLib complained while the list was read and freed")
    }
}
