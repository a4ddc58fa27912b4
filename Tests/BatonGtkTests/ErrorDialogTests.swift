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
            .fail(with: UserActivityError.connectionUnavailable("the link with \u{202E}evil\u{202C} dropped"))
        XCTAssertTrue(spin(until: { self.errorDialogs().count == 1 }), "a dialog says so")
        let dialog = try XCTUnwrap(errorDialogs().first)
        let texts = labels(in: baton_widget(dialog))
        XCTAssertTrue(texts.contains(BatonApplication.continuationErrorHeading), "\(texts)")
        XCTAssertTrue(texts.contains { $0.contains("the link with \u{FFFD}evil\u{FFFD} dropped") },
                      "why, with the bidi override shown as U+FFFD: \(texts)")
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
}
