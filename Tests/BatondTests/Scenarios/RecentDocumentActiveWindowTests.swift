import Foundation
import ServiceFixtures
import XCTest

/// The recent documents on a desktop whose window manager (openbox) says which window is
/// active: A offers the document of the app whose window is active, not the one opened last,
/// and an app that adopts Baton, in use, wins over the recent list.
final class RecentDocumentActiveWindowTests: RecentDocumentTestCase {
    override class var windowManagerOnA: Bool { true }

    private var desktopOfA: X11Desktop { X11Desktop(display: displayA?.name) }

    /// The window of the process `pid` on A's display whose title contains `name`.
    private func window(of pid: Int32?, titled name: String) throws -> String {
        var found: String?
        XCTAssertTrue(waitUntil(timeout: 20) {
            found = try self.desktopOfA.windows(pid: pid) { $0.contains(name) }.first
            return found != nil
        }, "a window titled \(name) on A's display")
        return try XCTUnwrap(found)
    }

    /// Makes `window` the active one, as a click on it would, through the window manager.
    private func activate(_ window: String) throws {
        try desktopOfA.xdotool(["windowactivate", "--sync", window])
    }

    func testTheDocumentOfTheActiveWindowIsOfferedNotTheOneOpenedLast() throws {
        try requireEvince()
        try devices.pair()
        try provideSystemService("org.gnome.evince.Daemon", on: devices.a)
        let pdf = try writePDF("report.pdf", in: folderOnlyOnA)
        let notes = try writeText("notes.txt", in: folderOnlyOnA)
        let evince = try openOnA(pdf, in: "evince")
        waitForTheNextSecond()
        let gedit = try openOnA(notes, in: "gedit")
        let evinceWindow = try window(of: evince.pid, titled: "report.pdf")
        let geditWindow = try window(of: gedit.pid, titled: "notes.txt")

        try activate(evinceWindow)
        waitForOffer("report.pdf — Document Viewer", "Evince's window is active, though gedit's document is newer")
        try activate(geditWindow)
        waitForOffer("notes.txt — gedit", "gedit's window is active")
        try activate(evinceWindow)
        waitForOffer("report.pdf — Document Viewer", "Evince's window is active again")
    }

    func testAnAdoptingAppInUseWinsOverTheRecentList() throws {
        if let missing = ExampleAppProcess.missingRequirement("TextEditor") { throw XCTSkip(missing) }
        try devices.pair()
        let notes = try writeText("notes.txt", in: folderOnlyOnA)
        let gedit = try openOnA(notes, in: "gedit")
        let geditWindow = try window(of: gedit.pid, titled: "notes.txt")
        try activate(geditWindow)
        waitForOffer("notes.txt — gedit")

        let editor = ExampleAppProcess(program: "TextEditor", root: devices.a.root.appendingPathComponent("editor-a"))
        editor.display = displayA?.name
        apps.append(editor)
        try editor.install(in: devices.a)
        let report = try writeText("report.md", in: folderOnlyOnA, "# Report\n\nThe numbers are in.\n")
        try editor.launch([report.path], environment: devices.a.environment)
        let editorWindow = try XCTUnwrap(editor.windows(titled: "report.md").first, editor.log)
        // TextEditor, like any GTK app, adds its document to the recent list: as the app's own
        // activity, not a recent document, it is offered.
        XCTAssertTrue(waitUntil(timeout: 20) { self.recentListOfAHolds(report) }, editor.log)
        try activate(editorWindow)
        XCTAssertTrue(waitUntil(timeout: 20) { try self.offersFromA() == ["report.md"] },
                      "B lists TextEditor's activity from A: \(String(describing: try? offersFromA()))")
        let offer = try devices.b.activities().first { $0["device"] as? String == "alpha" }
        XCTAssertEqual(offer?["app-id"] as? String, "org.example.TextEditor")
        XCTAssertTrue(waitUntil(timeout: 5) { try self.recentDocumentsOfA().isEmpty },
                      "A offers no document from its recent list: \(String(describing: try? recentDocumentsOfA()))")

        try activate(geditWindow)
        waitForOffer("notes.txt — gedit", "gedit's window is active again")
    }
}
