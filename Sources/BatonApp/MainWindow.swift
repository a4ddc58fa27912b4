import BatonGLib
import BatonGtk
import CAdwaita
import CGtk

/// The Baton app's window: a header bar with a view switcher over the pages (This Device,
/// Devices, Offers, Apps, Doctor), each rebuilt from the service's records when they change.
@MainActor
final class MainWindow: ApplicationWindow {
    /// The pages: name, title, icon.
    nonisolated static let pages: [(name: String, title: String, icon: String)] = [
        ("device", "This Device", "computer-symbolic"), ("devices", "Devices", "network-workgroup-symbolic"),
        ("offers", "Offers", "emblem-shared-symbolic"), ("apps", "Apps", "view-app-grid-symbolic"),
        ("doctor", "Doctor", "emblem-default-symbolic"),
    ]

    let stack: Rows.Widget = adw_view_stack_new()!
    private let toasts: Rows.Widget = adw_toast_overlay_new()!
    /// Each page's slot: a box whose one child is the page's current content.
    private var slots: [String: Rows.Widget] = [:]

    override init(application: BatonApplication) {
        let window = adw_application_window_new(application.gtkApplication)!
        super.init(wrapping: window.cast(to: GtkWindow.self), application: application)
        title = "Baton"
        gtk_window_set_default_size(gtkWindow, 620, 640)
        let header = adw_header_bar_new()!
        let switcher = adw_view_switcher_title_new()!
        adw_view_switcher_title_set_stack(baton_adw_view_switcher_title(switcher), baton_adw_view_stack(stack))
        adw_view_switcher_title_set_title(baton_adw_view_switcher_title(switcher), "Baton")
        adw_header_bar_set_title_widget(baton_adw_header_bar(header), switcher)
        for page in Self.pages {
            let slot = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
            gtk_widget_set_vexpand(slot, 1)
            slots[page.name] = slot
            _ = adw_view_stack_add_titled_with_icon(baton_adw_view_stack(stack), slot, page.name, page.title, page.icon)
        }
        // In a narrow window the switcher leaves the header bar for a bar at the bottom.
        let bar = adw_view_switcher_bar_new()!
        adw_view_switcher_bar_set_stack(OpaquePointer(bar), baton_adw_view_stack(stack))
        g_object_bind_property(UnsafeMutableRawPointer(switcher), "title-visible", UnsafeMutableRawPointer(bar), "reveal",
                               G_BINDING_SYNC_CREATE)
        let layout = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(layout.cast(to: GtkBox.self), header)
        gtk_box_append(layout.cast(to: GtkBox.self), stack)
        gtk_box_append(layout.cast(to: GtkBox.self), bar)
        adw_toast_overlay_set_child(baton_adw_toast_overlay(toasts), layout)
        adw_application_window_set_content(baton_adw_application_window(window), toasts)
    }

    /// Shows the page called `name`.
    func show(page name: String) {
        adw_view_stack_set_visible_child_name(baton_adw_view_stack(stack), name)
    }

    var visiblePage: String? {
        adw_view_stack_get_visible_child_name(baton_adw_view_stack(stack)).map { String(cString: $0) }
    }

    /// Puts `content` in the page called `name`, in place of what was there.
    func set(_ content: Rows.Widget, for name: String) {
        guard let slot = slots[name] else { return }
        while let child = gtk_widget_get_first_child(slot) { gtk_box_remove(slot.cast(to: GtkBox.self), child) }
        gtk_widget_set_vexpand(content, 1)
        gtk_box_append(slot.cast(to: GtkBox.self), content)
    }

    func showToast(_ text: String) {
        adw_toast_overlay_add_toast(baton_adw_toast_overlay(toasts), adw_toast_new(Rows.escaped(text)))
    }
}
