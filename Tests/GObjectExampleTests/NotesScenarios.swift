import Foundation
import ServiceFixtures
import XCTest

/// What every notes example must do with the real batond on a private bus under Xvfb: its
/// focused note is the current activity, typing reaches it in lazy update passes,
/// `baton inspect` shows the text, the active window's note is the one offered, a note
/// continued from a file restores into a window that then holds it, and a continued note
/// starts the app when it is not running.
/// A subclass per language runs them (``language``).
class NotesScenarios: XCTestCase {
    class var language: NotesLanguage { .python }

    var session: ServiceSession!
    var notes: NotesExampleProcess!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try NotesExampleProcess.requirements(Self.language)
        session = try ServiceSession()
        try session.startBus()
        try session.startBatond()
        notes = NotesExampleProcess(Self.language, root: session.root.appendingPathComponent("notes"))
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0, let notes { print("--- \(notes.appID)\n\(notes.log.suffix(3000))") }
        notes?.stop()
        session?.tearDown()
    }

    func checkTheFocusedNoteIsCurrentAndBatonInspectShowsItsText() throws {
        try notes.launchNotes(environment: session.environment)
        let window = try XCTUnwrap(notes.windows(titled: "Note", timeout: 20).first, "the note's window opened")
        let text = "Lunch at noon, then the review"
        try notes.type(text, into: window)

        let current = try XCTUnwrap(session.waitForActivity(titled: "Note: \(text)", timeout: 15),
                                    "batond lists the note by its title, which update-state set")
        XCTAssertEqual(current["type"] as? String, NotesExampleProcess.activityType)
        let status = try session.baton(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.errorOutput)
        let currentActivity = try XCTUnwrap((status.json as? [String: Any])?["current"] as? [String: Any],
                                            "baton status has a current activity")
        XCTAssertEqual(currentActivity["app-id"] as? String, notes.appID)
        XCTAssertEqual(currentActivity["title"] as? String, "Note: \(text)")

        let inspect = try session.baton(["inspect", "--json"])
        XCTAssertEqual(inspect.status, 0, inspect.errorOutput)
        let inspected = try XCTUnwrap(inspect.json as? [String: Any])
        XCTAssertEqual((inspected["userInfo"] as? [String: Any])?["text"] as? String, text,
                       "baton inspect shows the text the app put in user-info")

        // xdotool types the text in one burst: the marks of several keystrokes share a pass.
        let passes = notes.events().filter { $0.event == "updated" }.count
        XCTAssertGreaterThan(passes, 0)
        XCTAssertLessThan(passes, text.count, "fewer update passes (\(passes)) than keystrokes (\(text.count))")
    }

    func checkTheNoteOfTheActiveWindowIsCurrent() throws {
        try notes.launchNotes(environment: session.environment)
        let first = try XCTUnwrap(notes.windows(titled: "Note", timeout: 20).first)
        try notes.type("First", into: first)
        XCTAssertNotNil(session.waitForActivity(titled: "Note: First", timeout: 15))
        try notes.key("ctrl+n", in: first)
        var second: String?
        waitUntil(timeout: 10) {
            second = try self.notes.windows(titled: "Note").first { $0 != first }
            return second != nil
        }
        try notes.type("Second", into: try XCTUnwrap(second, "Ctrl+N opened a second note"))
        XCTAssertTrue(waitUntil(timeout: 10) { try self.currentTitle() == "Note: Second" },
                      "the second window's note is current: \(String(describing: try? self.currentTitle()))")
        try notes.focus(first)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.currentTitle() == "Note: First" },
                      "activating the first window makes its note current again: \(String(describing: try? self.currentTitle()))")
    }

    /// A note continued from a file (`baton continue --file`) into the running app opens in a
    /// new window beside the first, which then holds it: its own next update pass carries it.
    func checkANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt() throws {
        try notes.launchNotes(environment: session.environment)
        XCTAssertNotNil(try notes.windows(titled: "Note", timeout: 20).first)
        let text = "Continued from a file"
        let result = try session.baton(["continue", "--file", try noteFile(text).path])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(notes.waitForEvent(timeout: 15) { $0.event == "restored" }, "the app restored it")
        XCTAssertEqual(restored.userInfo?["text"] as? String, text)
        XCTAssertEqual(try notes.windows { $0.hasPrefix("Note") }.count, 2, "a second window opened for the note")
        XCTAssertTrue(waitUntil(timeout: 10) { self.notes.lastSavedText == text },
                      "the new window saves the restored text: \(String(describing: self.notes.lastSavedText))")
    }

    /// With the app installed but not running, a continued note starts it; the launch shows
    /// the continued note alone (no default window from `activate`).
    func checkAContinuedNoteLaunchesTheAppWhenItIsNotRunning() throws {
        try notes.installNotes(in: session)
        let text = "Started for this note"
        let result = try session.baton(["continue", "--file", try noteFile(text).path])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(notes.waitForEvent(timeout: 20) { $0.event == "restored" },
                                     "batond started \(notes.appID), which restored the note")
        XCTAssertEqual(restored.userInfo?["text"] as? String, text)
        notes.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertEqual(try notes.windows { $0.hasPrefix("Note") }.count, 1, "the continued note's window alone")
        XCTAssertTrue(waitUntil(timeout: 10) { self.notes.lastSavedText == text },
                      "its window saves the restored text: \(String(describing: self.notes.lastSavedText))")
    }

    /// With the app installed, the same interpreter running a copy of its script from another
    /// folder registers unverified, saying which script it runs; the installed script is
    /// verified. (For an interpreted example: the interpreter alone does not make the app.)
    func checkAnotherScriptOfTheInterpreterIsNotTheApp() throws {
        try notes.installNotes(in: session)
        let elsewhere = session.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let script = notes.command.last.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
        try FileManager.default.copyItem(at: Self.language.folder.appendingPathComponent(script),
                                         to: elsewhere.appendingPathComponent(script))
        let copy = NotesExampleProcess(Self.language, root: session.root.appendingPathComponent("copy"), scriptFolder: elsewhere)
        defer { copy.stop() }
        try copy.launchNotes(environment: session.environment)
        let impostor = try XCTUnwrap(registration(timeout: 20), "the copy registered")
        XCTAssertEqual(impostor["verified"] as? Bool, false, "\(impostor)")
        XCTAssertTrue((impostor["verification"] as? String ?? "").contains("on \(elsewhere.appendingPathComponent(script).path)"),
                      "it says which script runs: \(impostor)")
        copy.stop()

        XCTAssertTrue(waitUntil(timeout: 10) { try self.registration() == nil }, "the copy's registration ended")
        try notes.launchNotes(environment: session.environment)
        let real = try XCTUnwrap(registration(timeout: 20), "the installed script registered")
        XCTAssertEqual(real["verified"] as? Bool, true, "\(real)")
    }

    /// The example's running registration in `baton apps --json`, waiting up to `timeout`.
    private func registration(timeout: Double = 0) throws -> [String: Any]? {
        var found: [String: Any]?
        _ = waitUntil(timeout: timeout) {
            let apps = try self.session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
            found = apps.first { $0["app-id"] as? String == self.notes.appID && $0["running"] as? Bool == true }
            return found != nil
        }
        return found
    }

    /// An activity file (`baton inspect --json`'s shape) of a note holding `text`.
    private func noteFile(_ text: String) throws -> URL {
        let file = session.root.appendingPathComponent("note-\(UUID().uuidString).json")
        let record: [String: Any] = ["type": NotesExampleProcess.activityType, "title": "Note: \(text)",
                                     "teamID": "org.example", "userInfo": ["text": text]]
        try JSONSerialization.data(withJSONObject: record).write(to: file)
        return file
    }

    /// The title of `baton status`'s current activity.
    private func currentTitle() throws -> String? {
        let status = try session.baton(["status", "--json"])
        return ((status.json as? [String: Any])?["current"] as? [String: Any])?["title"] as? String
    }
}

/// ``NotesScenarios`` with the PyGObject app, `Examples/Python/notes.py`.
final class PythonNotesTests: NotesScenarios {
    override class var language: NotesLanguage { .python }

    func testTheFocusedNoteIsCurrentAndBatonInspectShowsItsText() throws {
        try checkTheFocusedNoteIsCurrentAndBatonInspectShowsItsText()
    }
    func testTheNoteOfTheActiveWindowIsCurrent() throws { try checkTheNoteOfTheActiveWindowIsCurrent() }
    func testANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt() throws {
        try checkANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt()
    }
    func testAContinuedNoteLaunchesTheAppWhenItIsNotRunning() throws { try checkAContinuedNoteLaunchesTheAppWhenItIsNotRunning() }
    func testAnotherScriptOfTheInterpreterIsNotTheApp() throws { try checkAnotherScriptOfTheInterpreterIsNotTheApp() }
}

/// ``NotesScenarios`` with the C app, `Examples/C/notes.c`, compiled against the build.
final class CNotesTests: NotesScenarios {
    override class var language: NotesLanguage { .c }

    func testTheFocusedNoteIsCurrentAndBatonInspectShowsItsText() throws {
        try checkTheFocusedNoteIsCurrentAndBatonInspectShowsItsText()
    }
    func testTheNoteOfTheActiveWindowIsCurrent() throws { try checkTheNoteOfTheActiveWindowIsCurrent() }
    func testANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt() throws {
        try checkANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt()
    }
    func testAContinuedNoteLaunchesTheAppWhenItIsNotRunning() throws { try checkAContinuedNoteLaunchesTheAppWhenItIsNotRunning() }
}

/// ``NotesScenarios`` with the GJS app, `Examples/JavaScript/notes.js`.
final class JavaScriptNotesTests: NotesScenarios {
    override class var language: NotesLanguage { .javascript }

    func testTheFocusedNoteIsCurrentAndBatonInspectShowsItsText() throws {
        try checkTheFocusedNoteIsCurrentAndBatonInspectShowsItsText()
    }
    func testTheNoteOfTheActiveWindowIsCurrent() throws { try checkTheNoteOfTheActiveWindowIsCurrent() }
    func testANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt() throws {
        try checkANoteContinuedFromAFileRestoresIntoAWindowThatHoldsIt()
    }
    func testAContinuedNoteLaunchesTheAppWhenItIsNotRunning() throws { try checkAContinuedNoteLaunchesTheAppWhenItIsNotRunning() }
    func testAnotherScriptOfTheInterpreterIsNotTheApp() throws { try checkAnotherScriptOfTheInterpreterIsNotTheApp() }
}
