import Baton
import BatonGtk
import CAdwaita
import CGtk

/// A window of an example app, the GNOME way: libadwaita's `AdwApplicationWindow` (made by
/// the app, wrapped by BatonGtk) with a header bar, a banner for what lasts (progress,
/// errors), toasts for what passes, and the app's keyboard shortcuts window (Ctrl+?).
@MainActor
open class AppWindow: ApplicationWindow {
    /// The window's `AdwHeaderBar`.
    public let headerBar: Widgets.Widget = adw_header_bar_new()!
    /// Progress and errors that stay until they are over or dismissed.
    public let banner = Banner()
    private let toastOverlay: Widgets.Widget = adw_toast_overlay_new()!
    private let layout = Widgets.box(.vertical)

    /// A window of `application`, `width` by `height` unless the person resizes it; `shortcuts`
    /// lists the shortcuts its help overlay shows.
    public init(application: BatonApplication, title: String, width: Int32, height: Int32,
                shortcuts: [ShortcutsWindow.Group]) {
        let window = adw_application_window_new(application.gtkApplication)!
        super.init(wrapping: window.cast(to: GtkWindow.self), application: application)
        self.title = title
        gtk_window_set_default_size(gtkWindow, width, height)
        Widgets.append(headerBar, to: layout)
        Widgets.append(banner.widget, to: layout)
        adw_toast_overlay_set_child(baton_adw_toast_overlay(toastOverlay), layout)
        adw_application_window_set_content(baton_adw_application_window(window), toastOverlay)
        if let help = ShortcutsWindow.make(shortcuts) {
            gtk_application_window_set_help_overlay(window.cast(to: GtkApplicationWindow.self), help)
        }
    }

    /// Puts `content` below the header bar and the banner.
    public func setContent(_ content: Widgets.Widget) {
        gtk_widget_set_vexpand(content, 1)
        Widgets.append(content, to: layout)
    }

    /// Shows `text` in a toast for a few seconds.
    public func showToast(_ text: String) {
        // libadwaita 1.2 reads a toast's title as Pango markup: the text is escaped.
        guard let escaped = g_markup_escape_text(text, -1) else { return }
        defer { g_free(escaped) }
        adw_toast_overlay_add_toast(baton_adw_toast_overlay(toastOverlay), adw_toast_new(escaped))
    }

    public func packStart(_ widget: Widgets.Widget) {
        adw_header_bar_pack_start(baton_adw_header_bar(headerBar), widget)
    }

    public func packEnd(_ widget: Widgets.Widget) {
        adw_header_bar_pack_end(baton_adw_header_bar(headerBar), widget)
    }

    public func setTitleWidget(_ widget: Widgets.Widget) {
        adw_header_bar_set_title_widget(baton_adw_header_bar(headerBar), widget)
    }
}
