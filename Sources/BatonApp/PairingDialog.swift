import BatonBus
import BatonGLib
import BatonGtk
import CAdwaita
import CGtk

/// Pairing with a device, on either side: this device's code, large and in two groups of
/// three digits as GNOME Settings shows Bluetooth PINs, a field for the code the other device
/// shows, Pair and Cancel (`AdwMessageDialog`). Nothing but the code typed here confirms;
/// Cancel ends the pairing on both devices.
@MainActor
final class PairingDialog {
    let deviceID: String
    let deviceName: String
    private let dialog: Rows.Widget
    private let entry: Rows.Widget
    private var onResponse: ((String?) -> Void)?

    /// - Parameter respond: runs once, with the code typed (Pair) or `nil` (Cancel, Escape).
    init(parent: UnsafeMutablePointer<GtkWindow>?, deviceID: String, deviceName: String, code: String,
         respond: @escaping (String?) -> Void) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        onResponse = respond
        dialog = adw_message_dialog_new(parent, "Pair with “\(deviceName)”?",
                                        "Type this code on “\(deviceName)”, then type here the code “\(deviceName)” shows.")!
        let codeLabel = gtk_label_new(PairingCodeText.grouped(code))!
        gtk_widget_add_css_class(codeLabel, "title-1")
        gtk_widget_add_css_class(codeLabel, "numeric")
        gtk_label_set_selectable(OpaquePointer(codeLabel), 1)
        entry = gtk_entry_new()!
        gtk_entry_set_placeholder_text(entry.cast(to: GtkEntry.self), "Code shown on “\(deviceName)”")
        gtk_entry_set_max_length(entry.cast(to: GtkEntry.self), 7)
        gtk_entry_set_input_purpose(entry.cast(to: GtkEntry.self), GTK_INPUT_PURPOSE_DIGITS)
        gtk_entry_set_activates_default(entry.cast(to: GtkEntry.self), 1)
        let message = baton_adw_message_dialog(dialog)
        adw_message_dialog_set_body_use_markup(message, 0)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18)!
        gtk_box_append(content.cast(to: GtkBox.self), codeLabel)
        gtk_box_append(content.cast(to: GtkBox.self), entry)
        adw_message_dialog_set_extra_child(message, content)
        adw_message_dialog_add_response(message, "cancel", "_Cancel")
        adw_message_dialog_add_response(message, "pair", "_Pair")
        adw_message_dialog_set_response_appearance(message, "pair", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(message, "pair")
        adw_message_dialog_set_close_response(message, "cancel")
        GObjectSignals.connectIgnoringArgument(UnsafeMutableRawPointer(dialog), "response::pair") { [weak self] in
            guard let self else { return }
            let typed = gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
            finish(typed.filter { !$0.isWhitespace })
        }
        GObjectSignals.connectIgnoringArgument(UnsafeMutableRawPointer(dialog), "response::cancel") { [weak self] in
            self?.finish(nil)
        }
        gtk_window_present(dialog.cast(to: GtkWindow.self))
        gtk_widget_grab_focus(entry)
    }

    private func finish(_ code: String?) {
        let respond = onResponse
        onResponse = nil
        respond?(code)
    }

    /// Closes the dialog without answering (the pairing ended elsewhere).
    func dismiss() {
        onResponse = nil
        gtk_window_destroy(dialog.cast(to: GtkWindow.self))
    }
}
