import Baton
import BatonGtk
import CAdwaita
import CGtk

/// A window of the app, the GNOME way: libadwaita's `AdwApplicationWindow` (made by the app,
/// wrapped by BatonGtk) with a header bar, a banner for what lasts (progress, errors), toasts
/// for what passes, and the keyboard shortcuts window (Ctrl+?).
@MainActor
class MailWindow: ApplicationWindow {
    /// The window's `AdwHeaderBar`.
    let headerBar: Widgets.Widget = adw_header_bar_new()!
    /// Progress and errors that stay until they are over or dismissed.
    let banner = Banner()
    private let toastOverlay: Widgets.Widget = adw_toast_overlay_new()!
    private let layout = Widgets.box(GTK_ORIENTATION_VERTICAL)

    init(application: BatonApplication, title: String, width: Int32, height: Int32) {
        let window = adw_application_window_new(application.gtkApplication)!
        super.init(wrapping: window.cast(to: GtkWindow.self), application: application)
        self.title = title
        gtk_window_set_default_size(gtkWindow, width, height)
        Widgets.append(headerBar, to: layout)
        Widgets.append(banner.widget, to: layout)
        adw_toast_overlay_set_child(baton_adw_toast_overlay(toastOverlay), layout)
        adw_application_window_set_content(baton_adw_application_window(window), toastOverlay)
        if let shortcuts = ShortcutsWindow.make() {
            gtk_application_window_set_help_overlay(window.cast(to: GtkApplicationWindow.self), shortcuts)
        }
    }

    /// Puts `content` below the header bar and the banner.
    func setContent(_ content: Widgets.Widget) {
        gtk_widget_set_vexpand(content, 1)
        Widgets.append(content, to: layout)
    }

    /// Shows `text` in a toast for a few seconds.
    func showToast(_ text: String) {
        // libadwaita 1.2 reads a toast's title as Pango markup: the text is escaped.
        guard let escaped = g_markup_escape_text(text, -1) else { return }
        defer { g_free(escaped) }
        adw_toast_overlay_add_toast(baton_adw_toast_overlay(toastOverlay), adw_toast_new(escaped))
    }

    func packStart(_ widget: Widgets.Widget) {
        adw_header_bar_pack_start(baton_adw_header_bar(headerBar), widget)
    }

    func packEnd(_ widget: Widgets.Widget) {
        adw_header_bar_pack_end(baton_adw_header_bar(headerBar), widget)
    }

    func setTitleWidget(_ widget: Widgets.Widget) {
        adw_header_bar_set_title_widget(baton_adw_header_bar(headerBar), widget)
    }
}
