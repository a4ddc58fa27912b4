import BatonGLib
import CAdwaita
import CGtk

/// A question or a notice over the app's window (`AdwMessageDialog`): a heading, plain text,
/// Close (or Cancel), and at most one other answer.
@MainActor
enum MessageDialog {
    /// The other answer: its label (with mnemonic), how it looks, and what it does.
    struct Answer {
        let label: String
        let appearance: AdwResponseAppearance
        let action: @MainActor () -> Void
    }

    /// Presents the dialog over `parent`. With an `answer`, the close button says `dismiss`
    /// ("_Cancel", "_Close") and the default response is `answer` when it is suggested (Enter
    /// does it), the dismissal when it is destructive.
    static func present(over parent: UnsafeMutablePointer<GtkWindow>?, heading: String, body: String,
                        dismiss: String = "_Close", answer: Answer? = nil) {
        let dialog = adw_message_dialog_new(parent, heading, body)!
        let message = baton_adw_message_dialog(dialog)
        adw_message_dialog_set_body_use_markup(message, 0)
        adw_message_dialog_add_response(message, "dismiss", dismiss)
        adw_message_dialog_set_close_response(message, "dismiss")
        adw_message_dialog_set_default_response(message, "dismiss")
        if let answer {
            adw_message_dialog_add_response(message, "answer", answer.label)
            adw_message_dialog_set_response_appearance(message, "answer", answer.appearance)
            if answer.appearance == ADW_RESPONSE_SUGGESTED { adw_message_dialog_set_default_response(message, "answer") }
            GObjectSignals.connectIgnoringArgument(UnsafeMutableRawPointer(dialog), "response::answer", answer.action)
        }
        gtk_window_present(dialog.cast(to: GtkWindow.self))
    }
}
