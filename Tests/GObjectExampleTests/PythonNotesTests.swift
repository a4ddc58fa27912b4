import Foundation
import ServiceFixtures
import XCTest

/// The Python notes app, with the real batond on a private bus under Xvfb: its note is the
/// current activity, typing reaches it in lazy update passes, `baton inspect` shows the text.
final class PythonNotesTests: XCTestCase {
    private var session: ServiceSession!
    private var notes: PythonNotesProcess!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        if let missing = TestDesktopKind.x11.missingRequirement { throw XCTSkip(missing) }
        try PythonNotesProcess.requirements()
        session = try ServiceSession()
        try session.startBus()
        try session.startBatond()
        notes = PythonNotesProcess(root: session.root.appendingPathComponent("notes"))
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0, let notes { print("--- notes.py\n\(notes.log.suffix(3000))") }
        notes?.stop()
        session?.tearDown()
    }

    func testTheFocusedNoteIsCurrentAndBatonInspectShowsItsText() throws {
        try notes.launchNotes(environment: session.environment)
        let window = try XCTUnwrap(notes.windows(titled: "Note", timeout: 20).first, "the note's window opened")
        let text = "Lunch at noon, then the review"
        try notes.type(text, into: window)

        let current = try XCTUnwrap(session.waitForActivity(titled: "Note: \(text)", timeout: 15),
                                    "batond lists the note by its title, which update-state set")
        XCTAssertEqual(current["type"] as? String, PythonNotesProcess.activityType)
        let status = try session.baton(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.errorOutput)
        let record = try XCTUnwrap(status.json as? [String: Any])
        let currentActivity = try XCTUnwrap(record["current"] as? [String: Any], "baton status has a current activity")
        XCTAssertEqual(currentActivity["app-id"] as? String, PythonNotesProcess.appID)
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

    func testTheNoteOfTheActiveWindowIsCurrent() throws {
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
        let secondWindow = try XCTUnwrap(second, "Ctrl+N opened a second note")
        try notes.type("Second", into: secondWindow)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.currentTitle() == "Note: Second" },
                      "the second window's note is current: \(String(describing: try? self.currentTitle()))")
        try notes.focus(first)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.currentTitle() == "Note: First" },
                      "activating the first window makes its note current again: \(String(describing: try? self.currentTitle()))")
    }

    /// The title of `baton status`'s current activity.
    private func currentTitle() throws -> String? {
        let status = try session.baton(["status", "--json"])
        return ((status.json as? [String: Any])?["current"] as? [String: Any])?["title"] as? String
    }
}
