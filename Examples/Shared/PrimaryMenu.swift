import CGtk

/// The primary menu of a GNOME app's window: a header bar button ("Main Menu", F10) with the
/// app's own items first, then Keyboard Shortcuts and About.
@MainActor
public enum PrimaryMenu {
    /// The menu button, its menu holding `items` (label with mnemonic, action name), then
    /// "Keyboard Shortcuts" (`win.show-help-overlay`) and "About `appName`" (`app.about`).
    public static func button(appName: String, items: [(label: String, action: String)] = []) -> Widgets.Widget {
        let menu = g_menu_new()!
        for item in items { g_menu_append(menu, item.label, item.action) }
        g_menu_append(menu, "_Keyboard Shortcuts", "win.show-help-overlay")
        g_menu_append(menu, "_About \(appName)", "app.about")
        let button = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(OpaquePointer(button), "open-menu-symbolic")
        gtk_menu_button_set_menu_model(OpaquePointer(button), UnsafeMutablePointer<GMenuModel>(menu))
        gtk_menu_button_set_primary(OpaquePointer(button), 1)
        gtk_widget_set_tooltip_text(button, "Main Menu")
        g_object_unref(UnsafeMutableRawPointer(menu))
        return button
    }
}
