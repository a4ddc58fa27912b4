import Baton
import BatonBus
import BatonGLib
import CGLib
import CGtk

/// The dialog a continuation shows while it is held up (its document still syncing): a
/// heading, what it waits for, a progress bar, and Cancel.
@MainActor
extension BatonApplication {
    /// The heading of the progress dialog.
    public static let continuationProgressHeading = "Continuing From Another Device"

    /// Shows `progress` (a new dialog, or the one shown updated), or takes the dialog down
    /// for `nil`.
    func showProgressDialog(_ progress: ContinuationProgress?) {
        guard let progress else {
            if let shown = progressDialog {
                progressDialog = nil
                gtk_window_destroy(baton_window(shown.dialog))
            }
            return
        }
        let message = UnsafeCharacters.replacing(in: progress.message.prefix(300))
        let shown = progressDialog ?? makeProgressDialog(message)
        progressDialog = shown
        baton_message_dialog_set_body(shown.dialog, message)
        let bar = OpaquePointer(shown.bar)
        if let fraction = progress.fractionCompleted {
            gtk_progress_bar_set_fraction(bar, fraction)
            gtk_progress_bar_set_text(bar, "\(Int((fraction * 100).rounded())) %")
        } else {
            gtk_progress_bar_pulse(bar)
            gtk_progress_bar_set_text(bar, nil)
        }
    }

    private func makeProgressDialog(_ message: String) -> (dialog: UnsafeMutablePointer<GtkWidget>, bar: UnsafeMutablePointer<GtkWidget>) {
        let bar = gtk_progress_bar_new()!
        gtk_progress_bar_set_show_text(OpaquePointer(bar), 1)
        let parent = gtk_application_get_active_window(gtkApplication)
        let dialog = baton_progress_dialog_new(parent, Self.continuationProgressHeading, message, bar)!
        let window = baton_window(dialog)
        gtk_window_set_title(window, Self.continuationProgressHeading)
        gtk_window_set_application(window, gtkApplication)
        _ = GObjectSignals.connectInt(UnsafeMutableRawPointer(dialog), "response") { [weak self] _ in
            guard let self, progressDialog?.dialog == dialog else { return }
            progressDialog = nil
            gtk_window_destroy(window)
            cancelContinuation()
        }
        // Destroyed with the window it was over: forgotten, so nothing touches it again.
        GObjectSignals.connect(UnsafeMutableRawPointer(dialog), "destroy") { [weak self] in
            if self?.progressDialog?.dialog == dialog { self?.progressDialog = nil }
        }
        gtk_window_present(window)
        return (dialog, bar)
    }
}
