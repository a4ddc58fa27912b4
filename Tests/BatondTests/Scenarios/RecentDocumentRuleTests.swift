import Foundation
import ServiceFixtures
import XCTest

/// What the recent list never offers, with real gedit on A and a paired B: an entry marked
/// private, a file under a hidden folder, the documents of an app the person blocked. Each
/// test has a control, a document that is offered in the same setting, to show the wait for
/// the one that must not be was long enough for it to show.
final class RecentDocumentRuleTests: RecentDocumentTestCase {
    /// How long a document that must not be offered is watched for: longer than the
    /// control's offer takes to show on B.
    private let quietPeriod: TimeInterval = 5

    /// A bookmark of `file` as GTK writes it for gedit, used at `date`.
    private func bookmark(_ file: URL, usedAt date: Date, isPrivate: Bool) -> String {
        RecentListXML.bookmark(href: file.absoluteString, app: "gedit", exec: "&apos;gedit %u&apos;",
                               stamp: RecentListXML.stamp(date, fractional: true),
                               extra: isPrivate ? "\n          <bookmark:private/>" : "")
    }

    func testAnEntryMarkedPrivateIsNotOffered() throws {
        try devices.pair()
        let control = try writeText("plans.txt", in: folderOnlyOnA)
        let secret = try writeText("notes.txt", in: folderOnlyOnA)
        // gedit runs, with no document (it adds none to the list).
        let gedit = try startOnA("gedit", ["--new-window"], name: "gedit-a")
        let desktop = X11Desktop(display: displayNameOfA)
        XCTAssertTrue(waitUntil(timeout: 20) { !(try desktop.windows(pid: gedit.pid) { _ in true }).isEmpty }, gedit.log)
        // Written as GTK writes the list (replaced whole): the private entry is the newest, so
        // it would be the one offered if privacy were not heeded.
        let list = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xbel version="1.0"
                  xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
                  xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
            >
            \(bookmark(control, usedAt: Date().addingTimeInterval(-60), isPrivate: false))
            \(bookmark(secret, usedAt: Date(), isPrivate: true))
            </xbel>
            """
        try Data(list.utf8).write(to: recentListOfA, options: .atomic)

        waitForOffer("plans.txt — gedit", "the control, read from the same list")
        expectNeverListed("notes.txt — gedit", for: 1, "an entry marked private is never offered")
    }

    func testADocumentUnderAHiddenFolderIsNotOffered() throws {
        try devices.pair()
        let control = try writeText("plans.txt", in: folderOnlyOnA)
        let hidden = try writeText("notes.txt", in: devices.a.root.appendingPathComponent(".secret"))
        try openOnA(control, in: "gedit")
        let latency = waitForOffer("plans.txt — gedit")
        XCTAssertLessThan(latency, quietPeriod, "the control showed within the wait below")

        // Opened later in the same gedit: the newest entry, under ~/.secret.
        waitForTheNextSecond()
        try openOnA(hidden, in: "gedit")
        expectNeverListed("notes.txt — gedit", for: quietPeriod, "a file under a hidden folder is never offered")
        XCTAssertEqual(try offersFromA(), ["plans.txt — gedit"])
    }

    func testTheDocumentOfABlockedAppIsNotOffered() throws {
        try devices.pair()
        let blocked = try devices.a.baton(["settings", "app", "gedit", "block"])
        XCTAssertEqual(blocked.status, 0, blocked.errorOutput)
        let file = try writeText("notes.txt", in: folderOnlyOnA)
        try openOnA(file, in: "gedit")
        expectNeverListed("notes.txt — gedit", for: quietPeriod, "a blocked app's document is never offered")

        // The control: gedit allowed again, the same document is offered.
        let start = Date()
        let allowed = try devices.a.baton(["settings", "app", "gedit", "allow"])
        XCTAssertEqual(allowed.status, 0, allowed.errorOutput)
        waitForOffer("notes.txt — gedit", timeout: 10, "allowed again, gedit's document is offered")
        XCTAssertLessThan(Date().timeIntervalSince(start), quietPeriod, "the wait above was long enough for it to show")
    }
}
