import Foundation
import ServiceFixtures
import XCTest

/// Black-box checks of the example app: a real MailComposer process on the test's desktop,
/// driven as a person would (xdotool on the X display, wtype and sway's IPC on Wayland),
/// observed through its `BATON_TRACE` trace and its files. `MailComposerTests` runs every
/// scenario on the X display; `MailComposerWaylandTests` the ones where the desktop matters
/// on a headless sway.
class MailComposerScenarios: XCTestCase {
    /// The desktop the app shows its windows on: each subclass names its own.
    class var desktopKind: TestDesktopKind { .x11 }

    private var root: URL!
    private var desktop: (any TestDesktop)!
    private var apps: [MailComposerProcess] = []

    override func setUpWithError() throws {
        try MailComposerProcess.requirements(Self.desktopKind)
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("mailcomposer-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        desktop = try Self.desktopKind.make()
    }

    override func tearDownWithError() throws {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            apps.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(2000))") }
            if let wayland = desktop as? WaylandSession {
                print("--- sway windows: \(String(describing: try? wayland.allWindows()))\n--- sway.log\n\(wayland.log.suffix(2000))")
            }
        }
        apps.forEach { $0.terminate() }
        desktop?.stop()
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    private func app() -> MailComposerProcess {
        let app = MailComposerProcess(root: root)
        app.desktop = desktop
        apps.append(app)
        return app
    }

    private func body(of event: [String: Any]) -> String? {
        event.userInfo?["body"] as? String
    }

    func checkTypingIntoTheBodyGivesOneUpdatePerIdleWithTheTypedText() throws {
        let app = app()
        try app.launch(["--to", "bob@example.org", "--subject", "Typing", "--body", "Hello"])
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "Draft: Typing" })
        let window = try XCTUnwrap(app.windows(titled: "Typing").first)
        usleep(300_000)
        let before = app.events().filter { $0.event == "updated" }.count

        let typed = " and goodbye"
        try app.type(typed, into: window)
        let final = app.waitForEvent { $0.event == "updated" && self.body(of: $0) == "Hello" + typed }
        XCTAssertNotNil(final, "the typed text reaches userInfo through an update pass")
        usleep(300_000)
        let updates = app.events().filter { $0.event == "updated" }.dropFirst(before)
        XCTAssertGreaterThanOrEqual(updates.count, 1)
        // Fewer passes than keystrokes: how many keystrokes share a pass depends on how the
        // X server and a busy machine deliver them (half of them, seen once under load).
        XCTAssertLessThan(updates.count, typed.count,
                          "\(typed.count) keystrokes in one burst are coalesced, not one pass each")
        XCTAssertEqual(updates.last.flatMap(body(of:)), "Hello" + typed)
        XCTAssertEqual(updates.last?.userInfo?["cursor"] as? Int, ("Hello" + typed).count)
    }

    func checkFocusingAnotherComposeWindowMakesItCurrent() throws {
        let app = app()
        try app.launch(["--to", "alice@example.org", "--subject", "Alpha"])
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "Draft: Alpha" })
        let alpha = try XCTUnwrap(app.windows(titled: "Alpha").first)
        try app.key("ctrl+n", in: alpha)
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "Draft: No Subject" },
                        "Ctrl+N opens a second draft, which becomes current")
        let currentCount = app.events().filter { $0.event == "current" }.count

        try app.focus(alpha)
        let deadline = Date().addingTimeInterval(10)
        var refocused = false
        while !refocused && Date() < deadline {
            refocused = app.events().filter { $0.event == "current" }.dropFirst(currentCount)
                .contains { $0.title == "Draft: Alpha" }
            usleep(20_000)
        }
        XCTAssertTrue(refocused, "focusing the first draft makes it current again")
    }

    func checkQuitAndRelaunchRestoresTheDraftIntoTheWindow() throws {
        let first = app()
        try FileManager.default.createDirectory(at: first.root, withIntermediateDirectories: true)
        let attachment = first.root.appendingPathComponent("plan.txt")
        try "the plan".write(to: attachment, atomically: true, encoding: .utf8)
        try first.launch(["--to", "carol@example.org", "--subject", "Restore me", "--body", "Line one",
                          "--attach", attachment.path])
        XCTAssertNotNil(first.waitForEvent { $0.event == "current" && $0.title == "Draft: Restore me" })
        let window = try XCTUnwrap(first.windows(titled: "Restore me").first)
        try first.type(", line two", into: window)
        XCTAssertNotNil(first.waitForEvent { $0.event == "updated" && self.body(of: $0) == "Line one, line two" })
        try first.key("ctrl+q", in: window)
        XCTAssertEqual(first.waitForExit(), 0, "Ctrl+Q quits cleanly")

        let saved = try FileManager.default.contentsOfDirectory(
            atPath: first.stateDirectory.appendingPathComponent("windows").path)
        XCTAssertFalse(saved.isEmpty, "quitting saved the open windows")
        for name in saved {
            let path = first.stateDirectory.appendingPathComponent("windows/\(name)").path
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, "saved drafts are private")
        }

        let second = app()
        try second.launch()
        let restored = second.waitForEvent { $0.event == "restored" && $0.type == "org.example.mail.compose" }
        XCTAssertEqual(restored.flatMap(body(of:)), "Line one, line two")
        XCTAssertEqual(restored?.userInfo?["cursor"] as? Int, "Line one, line two".count)
        XCTAssertFalse(try second.windows(titled: "Restore me").isEmpty, "the draft window is back")

        second.terminate()
        let readBack = second.events().last { $0.event == "updated" && $0.type == "org.example.mail.compose" }
        XCTAssertEqual(readBack.flatMap(body(of:)), "Line one, line two",
                       "saving on SIGTERM reads the text back from the restored window's fields")
        XCTAssertEqual(readBack?.userInfo?["to"] as? String, "carol@example.org")
        let attachments = readBack?.userInfo?["attachments"] as? [[String: Any]] ?? []
        XCTAssertEqual(attachments.compactMap { $0["name"] as? String }, ["plan.txt"], "the attachment survives a relaunch")
        XCTAssertEqual(attachments.first?["size"] as? Int, "the plan".utf8.count)
        XCTAssertFalse(second.log.contains("Missing attachments"), "its file is found after the relaunch: \(second.log)")
    }

    func checkSendingAppendsToTheSentFolderAndClosesTheDraft() throws {
        let app = app()
        try app.launch(["--to", "dave@example.org", "--subject", "Tickets", "--body", "Coach C it is."])
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "Draft: Tickets" })
        let window = try XCTUnwrap(app.windows(titled: "Tickets").first)
        try app.key("ctrl+Return", in: window)
        XCTAssertNotNil(app.waitForEvent { $0.event == "invalidated" && $0.type == "org.example.mail.compose" })
        let sent = try String(contentsOf: app.dataDirectory.appendingPathComponent("sent.mbox"), encoding: .utf8)
        XCTAssertTrue(sent.contains("To: dave@example.org"))
        XCTAssertTrue(sent.contains("Subject: Tickets"))
        XCTAssertTrue(sent.contains("Coach C it is."))
        XCTAssertTrue(waitUntil { try app.windows(titled: "Tickets", timeout: 0.1).isEmpty }, "the draft window closed")
    }

    /// Line breaks in a header value cannot forge headers or a second message in sent.mbox.
    func checkHeaderValuesCannotInjectIntoTheSentFolder() throws {
        let app = app()
        try app.launch(["--to", "eve@example.org", "--subject", "Hi\nFrom evil@example.org Mon\nMessage-ID: <forged@evil>",
                        "--body", "Body"])
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.type == "org.example.mail.compose" })
        let window = try XCTUnwrap(app.windows { $0.hasPrefix("Hi") }.first)
        try app.key("ctrl+Return", in: window)
        XCTAssertNotNil(app.waitForEvent { $0.event == "invalidated" && $0.type == "org.example.mail.compose" })
        let sent = try String(contentsOf: app.dataDirectory.appendingPathComponent("sent.mbox"), encoding: .utf8)
        let lines = sent.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("From ") }.count, 1, "one message:\n\(sent)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("Message-ID:") }.count, 1, "no forged header:\n\(sent)")
        XCTAssertFalse(lines.contains { $0.hasPrefix("Message-ID: <forged@evil>") })
    }

    /// Sending after the main window was closed is safe: no GTK criticals, the message is sent.
    func checkSendingAfterClosingTheMainWindowIsSafe() throws {
        let app = app()
        try app.launch(["--to", "frank@example.org", "--subject", "Late", "--body", "Still here"])
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "Draft: Late" })
        let main = try XCTUnwrap(app.windows(titled: "Mail Composer").first)
        try app.key("ctrl+w", in: main)
        let draft = try XCTUnwrap(app.windows(titled: "Late").first)
        try app.key("ctrl+Return", in: draft)
        XCTAssertNotNil(app.waitForEvent { $0.event == "invalidated" && $0.type == "org.example.mail.compose" })
        let sent = try String(contentsOf: app.dataDirectory.appendingPathComponent("sent.mbox"), encoding: .utf8)
        XCTAssertTrue(sent.contains("Still here"))
        XCTAssertEqual(app.waitForExit(), 0, "the last window closed, so the app quit cleanly")
        XCTAssertFalse(app.log.contains("CRITICAL"), app.log)
    }

    /// Closing a draft with something written in it asks first (Discard Draft?): Escape keeps
    /// it, Alt+D discards it; an empty draft closes at once.
    func checkClosingAWrittenDraftAsksFirst() throws {
        let app = app()
        try app.launch(["--to", "grace@example.org", "--subject", "Keep me", "--body", "Unsent"])
        XCTAssertNotNil(app.waitForEvent { $0.event == "current" && $0.title == "Draft: Keep me" })
        let draft = try XCTUnwrap(app.windows(titled: "Keep me").first)
        let pid = try XCTUnwrap(app.pid)
        let before = try app.desktop.windows(pid: pid) { _ in true }.count
        try app.key("ctrl+w", in: draft)
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before + 1 },
                      "the question opened")
        XCTAssertFalse(try app.windows(titled: "Keep me").isEmpty, "the draft is still open")
        try app.desktop.key("Escape")
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before },
                      "Escape keeps editing")
        XCTAssertFalse(try app.windows(titled: "Keep me").isEmpty)
        XCTAssertNil(app.events().first { $0.event == "invalidated" && $0.type == "org.example.mail.compose" })

        try app.key("ctrl+w", in: draft)
        XCTAssertTrue(waitUntil { try app.desktop.windows(pid: pid) { _ in true }.count == before + 1 })
        try app.desktop.key("alt+d")
        XCTAssertNotNil(app.waitForEvent { $0.event == "invalidated" && $0.type == "org.example.mail.compose" },
                        "Discard lets the draft go")
        XCTAssertTrue(waitUntil { try app.windows(titled: "Keep me", timeout: 0.1).isEmpty })

        let main = try XCTUnwrap(app.windows(titled: "Mail Composer").first)
        try app.key("ctrl+n", in: main)
        let empty = try XCTUnwrap(app.windows(titled: "New Message").first)
        try app.key("ctrl+w", in: empty)
        XCTAssertTrue(waitUntil { try app.windows(titled: "New Message", timeout: 0.1).isEmpty },
                      "an empty draft closes without asking")
    }

    /// A FIFO or an oversized file in the state folder is skipped, not read: launch goes on.
    func checkHostileStateFilesAreSkipped() throws {
        let app = app()
        let windows = app.stateDirectory.appendingPathComponent("windows")
        try FileManager.default.createDirectory(at: windows, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(windows.appendingPathComponent("window-000.activity").path, 0o600), 0)
        let large = windows.appendingPathComponent("window-001.activity")
        XCTAssertTrue(FileManager.default.createFile(atPath: large.path, contents: nil))
        XCTAssertEqual(truncate(large.path, 512 * 1024 * 1024), 0)
        try Data("not an activity".utf8).write(to: windows.appendingPathComponent("window-002.activity"))

        try app.launch()
        XCTAssertNotNil(app.waitForEvent { $0.event == "updated" && $0.type == "org.example.mail.read" },
                        "the app started and shows the inbox")
        XCTAssertNil(app.events().first { $0.event == "restored" })
        XCTAssertTrue(app.log.contains("not a regular file"), app.log)
        XCTAssertTrue(app.log.contains("over the limit"), app.log)
    }

    /// `MailComposer` typed in a terminal in another folder, found through `PATH`: Handoff is
    /// on and the inbox holds the sample mail.
    func checkStartedByNameThroughPATHItHasHandoffAndItsInbox() throws {
        let app = app()
        try app.launch([], byNameFrom: FileManager.default.temporaryDirectory)
        let reading = app.waitForEvent { $0.event == "updated" && $0.type == "org.example.mail.read" }
        XCTAssertNotNil(reading?.userInfo?["messageID"] as? String, "Handoff is on, reading a message of the inbox: \(app.log)")
        XCTAssertFalse(app.log.contains("Info.plist"), app.log)
    }

    func checkReadingPositionSurvivesARelaunch() throws {
        let first = app()
        try first.launch()
        let reading = first.waitForEvent { $0.event == "updated" && $0.type == "org.example.mail.read" }
        let messageID = try XCTUnwrap(reading?.userInfo?["messageID"] as? String)
        XCTAssertNotNil(reading?.userInfo?["visibleMessageID"] as? String, "the visible part is named by a message id")
        first.terminate()

        let second = app()
        try second.launch()
        let restored = second.waitForEvent { $0.event == "restored" && $0.type == "org.example.mail.read" }
        XCTAssertEqual(restored?.userInfo?["messageID"] as? String, messageID)
    }
}

/// Every scenario on the test's X display (xvfb-run), driven with xdotool.
final class MailComposerTests: MailComposerScenarios {
    func testStartedByNameThroughPATHItHasHandoffAndItsInbox() throws {
        try checkStartedByNameThroughPATHItHasHandoffAndItsInbox()
    }

    func testTypingIntoTheBodyGivesOneUpdatePerIdleWithTheTypedText() throws {
        try checkTypingIntoTheBodyGivesOneUpdatePerIdleWithTheTypedText()
    }

    func testFocusingAnotherComposeWindowMakesItCurrent() throws {
        try checkFocusingAnotherComposeWindowMakesItCurrent()
    }

    func testQuitAndRelaunchRestoresTheDraftIntoTheWindow() throws {
        try checkQuitAndRelaunchRestoresTheDraftIntoTheWindow()
    }

    func testSendingAppendsToTheSentFolderAndClosesTheDraft() throws {
        try checkSendingAppendsToTheSentFolderAndClosesTheDraft()
    }

    func testHeaderValuesCannotInjectIntoTheSentFolder() throws {
        try checkHeaderValuesCannotInjectIntoTheSentFolder()
    }

    func testSendingAfterClosingTheMainWindowIsSafe() throws {
        try checkSendingAfterClosingTheMainWindowIsSafe()
    }

    func testClosingAWrittenDraftAsksFirst() throws {
        try checkClosingAWrittenDraftAsksFirst()
    }

    func testHostileStateFilesAreSkipped() throws {
        try checkHostileStateFilesAreSkipped()
    }

    func testReadingPositionSurvivesARelaunch() throws {
        try checkReadingPositionSurvivesARelaunch()
    }
}

/// The scenarios where the desktop matters (focus, keyboard shortcuts, typing, windows that
/// open and close) on a headless sway run as an unprivileged user, driven with wtype and
/// sway's IPC (``WaylandSession``); skipped, saying why, without sway and wtype.
///
/// Not here: counting update passes while typing (wtype's keys reach the app spread over
/// several main-loop turns, not in one burst as xdotool's do: 12 keys measured 5 to 11 update
/// passes, so the count would measure wtype), and the scenarios about files and headers,
/// which do not depend on the desktop.
final class MailComposerWaylandTests: MailComposerScenarios {
    override class var desktopKind: TestDesktopKind { .wayland }

    func testFocusingAnotherComposeWindowMakesItCurrent() throws {
        try checkFocusingAnotherComposeWindowMakesItCurrent()
    }

    func testQuitAndRelaunchRestoresTheDraftIntoTheWindow() throws {
        try checkQuitAndRelaunchRestoresTheDraftIntoTheWindow()
    }

    func testSendingAppendsToTheSentFolderAndClosesTheDraft() throws {
        try checkSendingAppendsToTheSentFolderAndClosesTheDraft()
    }

    func testSendingAfterClosingTheMainWindowIsSafe() throws {
        try checkSendingAfterClosingTheMainWindowIsSafe()
    }

    func testClosingAWrittenDraftAsksFirst() throws {
        try checkClosingAWrittenDraftAsksFirst()
    }
}
