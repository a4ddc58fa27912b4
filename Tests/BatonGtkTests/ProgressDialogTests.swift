import Baton
import BatonGtk
import CGtk
import XCTest

/// A delegate without its own `didUpdateContinuationProgress`: the framework shows it.
@MainActor
private final class QuietDelegate: ApplicationDelegate {}

/// A held-up continuation (its document still syncing) shows the person what it waits for
/// and how far along it is, in one dialog updated in place, gone when the continuation ends;
/// Cancel gives up on it.
@MainActor
final class ProgressDialogTests: GtkTestCase {
    private var progressDialogs: [UnsafeMutablePointer<GtkWindow>] {
        visibleWindows(titled: BatonApplication.continuationProgressHeading)
    }

    /// The app's delegate, which leaves showing the progress to the framework.
    private let delegate = QuietDelegate()

    private func setUpQuietApplication() throws {
        try setUpApplication()
        application.delegate = delegate
    }

    /// Begins a continuation that waits for “report.md” to sync, `fractionCompleted` along,
    /// and waits until its dialog shows.
    private func beginWaitingContinuation(fractionCompleted: Double,
                                          file: StaticString = #filePath, line: UInt = #line) -> Continuation {
        let continuation = application.beginContinuation(activityType: "org.example.texteditor.editing")
        continuation.reportProgress("Waiting for “report.md” to sync", fractionCompleted: fractionCompleted)
        XCTAssertTrue(spin(until: { self.progressDialogs.count == 1 }), "a dialog shows the wait", file: file, line: line)
        return continuation
    }

    func testTheWaitIsShownUpdatedAndTakenDownAtTheEnd() async throws {
        try setUpQuietApplication()
        let (window, _) = makeWindow(title: "Notes")
        window.present()
        let continuation = beginWaitingContinuation(fractionCompleted: 0.4)
        let dialog = try XCTUnwrap(progressDialogs.first)
        var texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains("Waiting for “report.md” to sync"), "\(texts)")
        XCTAssertTrue(texts.contains("40 %"), "how far along: \(texts)")
        XCTAssertTrue(gtk_window_get_transient_for(dialog) == window.gtkWindow, "over the app's window")

        continuation.reportProgress("Copying “report.md” from \u{202E}alpha", fractionCompleted: nil)
        spin(until: { false }, timeout: 0.2)
        XCTAssertEqual(progressDialogs.count, 1, "the same dialog, updated")
        texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains("Copying “report.md” from \u{FFFD}alpha"), "a bidi override shows as U+FFFD: \(texts)")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            spin(until: { false }, timeout: 0.5)
            let shot = Process()
            shot.executableURL = URL(fileURLWithPath: "/usr/bin/import")
            shot.arguments = ["-window", "root", "\(folder)/continuation-progress.png"]
            try shot.run()
            shot.waitUntilExit()
        }

        continuation.fail(with: UserActivityError.connectionUnavailable("gone"))
        XCTAssertTrue(spin(until: { self.progressDialogs.isEmpty }), "taken down when the continuation ends")
        for error in visibleWindows(titled: BatonApplication.continuationErrorHeading) {
            gtk_dialog_response(baton_dialog(error), GTK_RESPONSE_CLOSE.rawValue)
        }
        window.close()
    }

    func testADialogGoneWithItsWindowIsNotTouchedAgain() async throws {
        try setUpQuietApplication()
        let (window, _) = makeWindow(title: "Notes")
        window.present()
        let continuation = beginWaitingContinuation(fractionCompleted: 0.1)
        window.destroy()
        XCTAssertTrue(spin(until: { self.progressDialogs.isEmpty }), "destroyed with the window it was over")
        continuation.reportProgress("Waiting for “report.md” to sync", fractionCompleted: 0.5)
        XCTAssertTrue(spin(until: { self.progressDialogs.count == 1 }), "a new one shows the wait")
        continuation.fail(with: UserActivityError.cancelled)
        XCTAssertTrue(spin(until: { self.progressDialogs.isEmpty }))
    }

    func testCancelGivesUpTheContinuation() async throws {
        try setUpQuietApplication()
        let continuation = beginWaitingContinuation(fractionCompleted: 0)
        gtk_dialog_response(baton_dialog(try XCTUnwrap(progressDialogs.first)), GTK_RESPONSE_CANCEL.rawValue)
        XCTAssertTrue(spin(until: { self.progressDialogs.isEmpty }), "Cancel closes it")
        XCTAssertEqual(continuation.error as? UserActivityError, .cancelled, "and cancels the continuation")
        spin(until: { false }, timeout: 0.2)
        XCTAssertTrue(visibleWindows(titled: BatonApplication.continuationErrorHeading).isEmpty, "a cancellation shows no error")
    }
}
