import BatonGtk
import CAdwaita
import CGtk

/// A question asked over a window before something is lost (`AdwMessageDialog`), such as
/// "Discard Draft?": a heading, a line saying what is at stake, and responses. The first
/// response is the safe one: the default, and what Escape or closing the dialog chooses.
@MainActor
public final class QuestionDialog {
    /// A possible answer: its id, its label (with a mnemonic), and whether it destroys
    /// something (shown in red) or is the suggested one.
    public struct Response: Sendable {
        public enum Appearance: Sendable { case normal, suggested, destructive }
        public var id: String
        public var label: String
        public var appearance: Appearance

        public init(_ id: String, _ label: String, appearance: Appearance = .normal) {
            self.id = id
            self.label = label
            self.appearance = appearance
        }
    }

    private var dialog: Widgets.Widget?

    public init() {}

    /// Whether the question is being asked now.
    public var isShown: Bool { dialog != nil }

    /// Asks over `window`, or brings the question forward if it is already asked;
    /// `onResponse` receives the id of the chosen response (the first one when dismissed).
    public func ask(over window: UnsafeMutablePointer<GtkWindow>?, heading: String, body: String,
                    responses: [Response], onResponse: @escaping @MainActor (String) -> Void) {
        if let dialog {
            gtk_window_present(dialog.cast(to: GtkWindow.self))
            return
        }
        guard let safe = responses.first, let made = adw_message_dialog_new(window, heading, body) else { return }
        let question = baton_adw_message_dialog(made)
        for response in responses {
            adw_message_dialog_add_response(question, response.id, response.label)
            switch response.appearance {
            case .normal: break
            case .suggested: adw_message_dialog_set_response_appearance(question, response.id, ADW_RESPONSE_SUGGESTED)
            case .destructive: adw_message_dialog_set_response_appearance(question, response.id, ADW_RESPONSE_DESTRUCTIVE)
            }
        }
        adw_message_dialog_set_default_response(question, safe.id)
        adw_message_dialog_set_close_response(question, safe.id)
        for response in responses {
            GObjectSignals.connectIgnoringArgument(UnsafeMutableRawPointer(made), "response::\(response.id)") {
                onResponse(response.id)
            }
        }
        GObjectSignals.connect(UnsafeMutableRawPointer(made), "destroy") { [weak self] in
            self?.dialog = nil
        }
        dialog = made
        gtk_window_present(made.cast(to: GtkWindow.self))
    }
}
