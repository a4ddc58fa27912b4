import Baton
import BatonBus
import BatonGLib
import CGLib
import CGtk
import Logging

/// Errors the person should see, shown as a GTK app shows them: a modal message dialog over
/// the active window, with a heading, what went wrong, and Close.
@MainActor
extension BatonApplication {
    /// The heading of the dialog that says a continuation failed.
    public static let continuationErrorHeading = "Could Not Continue"
    /// The heading of the dialog that shows any other error.
    public static let errorHeading = "Something Went Wrong"

    /// Shows `error` in a dialog headed `heading` (also its window title), over the active
    /// window, or on its own when the app has none; Close or Escape closes it.
    @discardableResult
    func showErrorDialog(heading: String, _ error: any Error) -> UnsafeMutablePointer<GtkWidget>? {
        let parent = gtk_application_get_active_window(gtkApplication)
        guard let dialog = baton_error_dialog_new(parent, heading, Self.shown(error)) else {
            return nil
        }
        let window = baton_window(dialog)
        gtk_window_set_title(window, heading)
        gtk_window_set_application(window, gtkApplication)
        _ = GObjectSignals.connectInt(UnsafeMutableRawPointer(dialog), "response") { _ in
            gtk_window_destroy(window)
        }
        gtk_window_present(window)
        return dialog
    }

    /// An error's message as the dialog shows it: a ``PresentableError``'s sentence for
    /// people (its detail goes to the log), any other error's description; unsafe characters
    /// (controls, bidi overrides) as U+FFFD, and no more than 1 000 characters.
    static func shown(_ error: any Error) -> String {
        let message: String
        if let presentable = error as? any PresentableError {
            message = presentable.messageForPeople
            // The detail, for whoever reads the log; never a document's name or path.
            let detail = error is DocumentReopenFailure ? "a continued document could not be opened" : String(describing: error)
            Logger(label: "baton.errors").notice("showing a sentence for the person: \(detail)")
        } else {
            message = String(describing: error)
        }
        return UnsafeCharacters.replacing(in: message.prefix(1000)) + (message.count > 1000 ? "…" : "")
    }
}
