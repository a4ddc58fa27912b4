import Baton
import BatonGtk
import CGtk
import XCTest

/// A delegate without its own `didFailToContinue…`: the framework shows the failure.
@MainActor
private final class QuietDelegate: ApplicationDelegate {}

/// A continuation that fails in an app whose delegate does not handle failures shows the
/// person why, in a dialog over the app's window; a cancelled one shows nothing.
@MainActor
final class ErrorDialogTests: GtkTestCase {
    private func errorDialogs() -> [UnsafeMutablePointer<GtkWindow>] {
        visibleWindows(titled: BatonApplication.continuationErrorHeading)
    }

    func testAFailedContinuationIsShownInADialogSafely() async throws {
        try setUpApplication()
        let delegate = QuietDelegate()
        application.delegate = delegate
        let (window, _) = makeWindow(title: "Draft")
        window.present()
        application.beginContinuation(activityType: "org.example.mail.compose")
            .fail(with: UserActivityError.connectionUnavailable("the link dropped"))
        XCTAssertTrue(spin(until: { self.errorDialogs().count == 1 }), "a dialog says so")
        let dialog = try XCTUnwrap(errorDialogs().first)
        let texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains(BatonApplication.continuationErrorHeading), "\(texts)")
        XCTAssertTrue(texts.contains("The other device could not be reached."), "why, for the person: \(texts)")
        XCTAssertTrue(gtk_window_get_transient_for(dialog) == window.gtkWindow, "over the app's window")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            spin(until: { false }, timeout: 0.5)
            let shot = Process()
            shot.executableURL = URL(fileURLWithPath: "/usr/bin/import")
            shot.arguments = ["-window", "root", "\(folder)/continuation-error.png"]
            try shot.run()
            shot.waitUntilExit()
        }

        gtk_dialog_response(baton_dialog(dialog), GTK_RESPONSE_CLOSE.rawValue)
        XCTAssertTrue(spin(until: { self.errorDialogs().isEmpty }), "Close closes it")

        application.beginContinuation(activityType: "org.example.mail.compose").fail(with: UserActivityError.cancelled)
        spin(until: { false }, timeout: 0.3)
        XCTAssertTrue(errorDialogs().isEmpty, "a cancelled continuation shows nothing")
        window.close()
    }

    /// An app's own error is shown as it describes itself, made safe to show.
    func testAnotherErrorIsShownSafely() async throws {
        try setUpApplication()
        let (window, _) = makeWindow(title: "Draft")
        window.present()
        application.presentError(PlainError(text: "the link with \u{202E}evil\u{202C} dropped"))
        let heading = BatonApplication.errorHeading
        XCTAssertTrue(spin(until: { self.visibleWindows(titled: heading).count == 1 }))
        let dialog = try XCTUnwrap(visibleWindows(titled: heading).first)
        let texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains { $0.contains("the link with \u{FFFD}evil\u{FFFD} dropped") },
                      "with the bidi override shown as U+FFFD: \(texts)")
        gtk_window_destroy(dialog)
        window.close()
    }

    /// The dialog says what went wrong in a sentence for the person; sizes and limits, which
    /// only the developer needs, go to the log (standard error here).
    func testADialogSaysASentenceForThePersonAndTheDetailGoesToTheLog() async throws {
        try setUpApplication()
        let (window, _) = makeWindow(title: "Draft")
        window.present()
        let log = try capturingStandardError {
            application.presentError(UserActivityError.userInfoTooLarge(size: 646_040, limit: 65_536))
            XCTAssertTrue(spin(until: { self.errorDialogs().count == 1 }))
        }
        let dialog = try XCTUnwrap(errorDialogs().first)
        let texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains("The activity holds too much to be sent to another device."), "\(texts)")
        XCTAssertFalse(texts.contains { $0.contains("bytes") || $0.contains("userInfo") || $0.contains("646040") },
                       "no developer wording in the dialog: \(texts)")
        XCTAssertTrue(log.contains("userInfo is 646040 bytes encoded, over the limit of 65536 bytes"), log)
        gtk_window_destroy(dialog)
        window.close()
    }

    /// A continuation the app's delegate declined, whose document the framework could not
    /// reopen, shows the person which document could not be opened.
    func testADeclinedContinuationWhoseDocumentCannotBeReopenedIsShown() async throws {
        try setUpApplication()
        let delegate = QuietDelegate()
        application.delegate = delegate
        let editing = "org.example.todo.editing"
        let info = BundleInfo(documentTypes: [
            DocumentType(name: "To-do list", fileExtensions: ["todo"], mimeTypes: ["application/x-todo"],
                         activityType: editing),
        ])
        let controller = DesktopDocumentController(bundleInfo: info, application: application) { url, _ in
            Document(fileURL: url)
        }
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/groceries.todo")
        let (window, _) = makeWindow(title: "Lists")
        window.present()
        let activity = UserActivity(activityType: editing)
        activity.userInfo = [UserActivity.documentURLKey: .url(missing)]
        let continuation = application.beginContinuation(activityType: editing)
        let log = try capturingStandardError {
            XCTAssertFalse(continuation.complete(with: activity, whenRestored: nil))
            XCTAssertTrue(spin(until: { self.errorDialogs().count == 1 }), "the person is told")
        }
        XCTAssertTrue(log.contains("a continued document could not be opened"), log)
        XCTAssertFalse(log.contains("groceries"), "the document's name stays out of the log: \(log)")
        let dialog = try XCTUnwrap(errorDialogs().first)
        let texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains("“groceries.todo” could not be opened."), "\(texts)")
        XCTAssertTrue(controller.documents.isEmpty)
        gtk_window_destroy(dialog)
        window.close()
    }

    /// Runs `body` with standard error going to a file, and returns what was written there.
    private func capturingStandardError(_ body: () throws -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        fflush(nil)
        let saved = dup(2)
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        dup2(file, 2)
        close(file)
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
        }
        try body()
        fflush(nil)
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

/// An error of the app's own, with no sentence for people.
private struct PlainError: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}
