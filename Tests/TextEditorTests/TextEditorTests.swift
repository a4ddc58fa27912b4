import Foundation
import ServiceFixtures
import XCTest

/// Black-box checks of the text editor: a real TextEditor process on the test's X display,
/// driven with xdotool, observed through its `BATON_TRACE` trace and the files it writes.
final class TextEditorTests: XCTestCase {
    private var root: URL!
    private var apps: [TextEditorProcess] = []

    override func setUpWithError() throws {
        try TextEditorProcess.requirements()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("texteditor-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            apps.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(2000))") }
        }
        apps.forEach { $0.terminate() }
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    /// A TextEditor process whose state is kept under the test's folder; launches of one
    /// `name` share their state.
    private func app(_ name: String = "editor") -> TextEditorProcess {
        let app = TextEditorProcess(root: root.appendingPathComponent(name))
        apps.append(app)
        return app
    }

    private func documentURL(of event: [String: Any]?) -> String? {
        event?.userInfo?["NSUserActivityDocumentURL"] as? String
    }

    func testTypingIsSavedToTheFileAndTheActivityNamesTheFileAndTheCursor() async throws {
        let file = try TextEditorProcess.writeReport(in: root, lines: 20)
        let app = app()
        try app.launch([file.path])
        let current = app.waitForEvent { $0.event == "current" && $0.title == "report.md" }
        XCTAssertEqual(current?.type, TextEditorProcess.activityType, "the document's activity is current")
        let window = try XCTUnwrap(app.windows(titled: "report.md").first)
        try app.key("ctrl+End", in: window)
        try app.type("The end.", into: window)

        XCTAssertTrue(waitUntil {
            (try String(contentsOf: file, encoding: .utf8)).hasSuffix("Line 20 of the report.\nThe end.")
        }, "the edit reaches the file within a few seconds of the last keystroke")
        let updated = app.waitForEvent { $0.event == "updated" && ($0.userInfo?["cursorColumn"] as? Int) == 9 }
        XCTAssertEqual(documentURL(of: updated), file.absoluteString, "the activity names the file")
        XCTAssertEqual(updated?.userInfo?["cursorLine"] as? Int, 21)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o644, "saving keeps the file's permissions")
    }

    /// `TextEditor Documents/trip.md` typed in a terminal, the program found through `PATH`:
    /// the document opens, with Handoff on.
    func testStartedByNameThroughPATHFromAnotherFolderItOpensTheDocument() async throws {
        let folder = root.appendingPathComponent("home", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Documents"), withIntermediateDirectories: true)
        let file = try TextEditorProcess.writeReport(in: folder.appendingPathComponent("Documents"), name: "trip.md", lines: 5)
        let app = app()
        try app.launch(["Documents/trip.md"], byNameFrom: folder)
        XCTAssertFalse(try app.windows(titled: "trip.md").isEmpty, "the document's window opened: \(app.log)")
        let current = app.waitForEvent { $0.event == "current" && $0.title == "trip.md" }
        XCTAssertEqual(current?.type, TextEditorProcess.activityType, "Handoff is on: the document's activity is current")
        let window = try XCTUnwrap(app.windows(titled: "trip.md").first)
        try app.type("Packed.", into: window)
        XCTAssertTrue(waitUntil { (try String(contentsOf: file, encoding: .utf8)).hasPrefix("Packed.") }, "typing is saved to the file")
        XCTAssertFalse(app.log.contains("Info.plist"), "the app found its resources: \(app.log)")
    }

    /// A start that cannot read the app's own files says so in words for a person, and keeps
    /// the last session: the next good start brings its window back.
    func testAStartThatCannotReadItsFilesSaysSoAndKeepsTheLastSession() async throws {
        let file = try TextEditorProcess.writeReport(in: root, lines: 20)
        let first = app("session")
        try first.launch([file.path])
        let window = try XCTUnwrap(first.windows(titled: "report.md").first)
        try first.key("ctrl+q", in: window)
        XCTAssertEqual(first.waitForExit(), 0, "Ctrl+Q quits cleanly")

        let damaged = root.appendingPathComponent("damaged", isDirectory: true)
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        try "not a property list".write(to: damaged.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        let broken = app("session")
        try broken.launch([file.path], environment: ["TEXTEDITOR_RESOURCES": damaged.path])
        let dialog = try XCTUnwrap(broken.windows(titled: "Something Went Wrong").first, "a dialog says what is wrong")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            try broken.desktop.screenshot(to: "\(folder)/texteditor-damaged-files.png")
        }
        try broken.key("Return", in: dialog)
        XCTAssertEqual(broken.waitForExit(), 0, "closing the dialog ends the app, which has no window")

        let second = app("session")
        try second.launch()
        XCTAssertFalse(try second.windows(titled: "report.md").isEmpty, "the last session's window is back")
    }

    func testSavingKeepsAPrivateFilePrivate() async throws {
        let file = try TextEditorProcess.writeReport(in: root, name: "diary.txt", lines: 5)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let app = app()
        try app.launch([file.path])
        let window = try XCTUnwrap(app.windows(titled: "diary.txt").first)
        try app.key("ctrl+End", in: window)
        try app.type("Secret.", into: window)
        XCTAssertTrue(waitUntil { (try String(contentsOf: file, encoding: .utf8)).hasSuffix("Secret.") })
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the file replaced on save has the old one's mode")
    }

    func testQuitAndRelaunchReopensTheDocumentAtTheSameLines() async throws {
        let file = try TextEditorProcess.writeReport(in: root)
        let first = app("session")
        try first.launch([file.path])
        let window = try XCTUnwrap(first.windows(titled: "report.md").first)
        try first.key("ctrl+Home", in: window)
        for _ in 0..<4 { try first.key("Page_Down", in: window) }
        try first.key("Down Down End", in: window)
        XCTAssertTrue(waitUntil { (first.lastPosition()?.cursor ?? 0) > 60 }, "the cursor moved down")
        // Where the window settled: the view follows the cursor on the next frames, and on a
        // busy machine the keys may arrive late (or repeat), so the same position must have
        // been the last saved for a second.
        var settled: (cursor: Int, column: Int, middle: Int)?
        var since = Date()
        XCTAssertTrue(waitUntil(timeout: 20) {
            let now = first.lastPosition()
            if now.map({ [$0.cursor, $0.column, $0.middle] }) != settled.map({ [$0.cursor, $0.column, $0.middle] }) {
                settled = now
                since = Date()
            }
            return settled != nil && Date().timeIntervalSince(since) >= 1
        }, "the window settled")
        let before = try XCTUnwrap(settled)
        XCTAssertGreaterThan(before.middle, 40, "the view scrolled with the cursor")
        try first.key("ctrl+q", in: window)
        XCTAssertEqual(first.waitForExit(), 0, "Ctrl+Q quits cleanly")

        let second = app("session")
        try second.launch()
        let restored = second.waitForEvent { $0.event == "restored" }
        XCTAssertEqual(documentURL(of: restored), file.absoluteString)
        XCTAssertFalse(try second.windows(titled: "report.md").isEmpty, "the document's window is back")
        // What the window holds: the app's own next update, once the view has settled.
        XCTAssertTrue(waitUntil {
            guard let now = second.lastPosition() else { return false }
            return now.cursor == before.cursor && now.column == before.column && now.middle == before.middle
        }, "the restored window shows the same lines: \(before) before, \(String(describing: second.lastPosition())) after")
    }

    func testAFileThatIsNotTextOpensNothingAndSaysWhy() async throws {
        let file = root.appendingPathComponent("broken.txt")
        let bytes: [UInt8] = [0x61, 0xff, 0xfe, 0x00, 0x62]
        try Data(bytes).write(to: file)
        let app = app()
        try app.launch([file.path])
        let pid = try XCTUnwrap(app.pid)
        XCTAssertTrue(waitUntil { try !app.desktop.windows(pid: pid) { _ in true }.isEmpty }, "a dialog opened")
        XCTAssertTrue(try app.windows(titled: "broken.txt", timeout: 0.5).isEmpty, "no document window")
        XCTAssertNil(app.events().first { $0.event == "current" }, "no activity")
        XCTAssertEqual(try Data(contentsOf: file), Data(bytes), "the file is untouched")
    }

    func testAFileThatDoesNotExistYetIsCreatedWhenTyped() async throws {
        let file = root.appendingPathComponent("new-notes.md")
        let app = app()
        try app.launch([file.path])
        let window = try XCTUnwrap(app.windows(titled: "new-notes.md").first)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "opening creates nothing")
        try app.type("First line", into: window)
        XCTAssertTrue(waitUntil { (try? String(contentsOf: file, encoding: .utf8)) == "First line" })
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "new-notes.md" })
    }

    func testClosingAnUntitledDocumentWithTextAsksFirst() async throws {
        let app = app()
        try app.launch(["--new"])
        let window = try XCTUnwrap(app.windows(titled: "Untitled").first)
        try app.type("Unsaved thoughts", into: window)
        let pid = try XCTUnwrap(app.pid)
        let before = try app.desktop.windows(pid: pid) { _ in true }.count
        try app.key("ctrl+w", in: window)
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before + 1 }, "the question opened")
        try app.desktop.key("Escape")
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before }, "Escape cancels")
        XCTAssertFalse(try app.windows(titled: "Untitled").isEmpty, "the document is still open")
        XCTAssertNil(app.events().first { $0.event == "current" }, "an untitled document has no activity")

        try app.key("ctrl+w", in: window)
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before + 1 })
        try app.desktop.key("alt+d")
        XCTAssertEqual(app.waitForExit(), 0, "Discard closed the last window, so the app quit")
    }

    func testQuittingWithAnUntitledDocumentAsksFirst() async throws {
        let report = try TextEditorProcess.writeReport(in: root, lines: 10)
        let app = app()
        try app.launch([report.path, "--new"])
        let untitled = try XCTUnwrap(app.windows(titled: "Untitled").first)
        try app.type("Thoughts worth keeping", into: untitled)
        let pid = try XCTUnwrap(app.pid)
        let before = try app.desktop.windows(pid: pid) { _ in true }.count
        let reportWindow = try XCTUnwrap(app.windows(titled: "report.md").first)
        try app.key("ctrl+q", in: reportWindow)
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before + 1 }, "the question opened")
        XCTAssertNil(app.waitForExit(timeout: 1), "the app did not quit")
        try app.desktop.key("Escape")
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before }, "Cancel keeps everything")
        XCTAssertFalse(try app.windows(titled: "Untitled").isEmpty)
    }

    func testEachDocumentHasAWindowAndTheFocusedOneIsCurrent() async throws {
        let report = try TextEditorProcess.writeReport(in: root, lines: 10)
        let notes = try TextEditorProcess.writeReport(in: root, name: "notes.txt", lines: 10)
        let app = app()
        try app.launch([report.path, notes.path])
        let reportWindow = try XCTUnwrap(app.windows(titled: "report.md").first)
        XCTAssertFalse(try app.windows(titled: "notes.txt").isEmpty)
        try app.focus(reportWindow)
        XCTAssertTrue(waitUntil { app.events().last { $0.event == "current" }?.title == "report.md" })
        let notesWindow = try XCTUnwrap(app.windows(titled: "notes.txt").first)
        try app.focus(notesWindow)
        XCTAssertTrue(waitUntil { app.events().last { $0.event == "current" }?.title == "notes.txt" })
        let current = app.events().last { $0.event == "updated" && $0.title == "notes.txt" }
        XCTAssertEqual(documentURL(of: current), notes.absoluteString)
    }
}
