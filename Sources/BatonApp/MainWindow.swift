import BatonGLib
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport

/// The Baton app's window: a header bar with a view switcher over the pages (This Device,
/// Devices, Offers, Apps, Doctor), each rebuilt from the service's records when they change,
/// and the primary menu (Keyboard Shortcuts, About). Toasts show above the bottom switcher,
/// each replacing the one before: a toast says how things stand now.
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
    private lazy var toast = ToastSlot(overlay: toasts)
    /// Each page's slot: a box whose one child is the page's current content.
    private var slots: [String: Rows.Widget] = [:]

    override init(application: BatonApplication) {
        let window = adw_application_window_new(application.gtkApplication)!
        super.init(wrapping: window.cast(to: GtkWindow.self), application: application)
        title = "Baton"
        // Wide enough for the switcher in the header bar, as GNOME Settings' pages are.
        gtk_window_set_default_size(gtkWindow, 860, 640)
        let header = adw_header_bar_new()!
        adw_header_bar_pack_end(baton_adw_header_bar(header), PrimaryMenu.button(appName: "Baton"))
        let pageShortcuts = Self.pages.enumerated().map { (title: $0.element.title, accelerator: "<Alt>\($0.offset + 1)") }
        if let help = ShortcutsWindow.make([
            ShortcutsWindow.Group("Pages", pageShortcuts),
            ShortcutsWindow.Group("General", [("Keyboard Shortcuts", "<Control>question"), ("Quit", "<Control>q")]),
        ]) {
            gtk_application_window_set_help_overlay(window.cast(to: GtkApplicationWindow.self), help)
        }
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
        adw_toast_overlay_set_child(baton_adw_toast_overlay(toasts), stack)
        gtk_widget_set_vexpand(toasts, 1)
        gtk_box_append(layout.cast(to: GtkBox.self), header)
        gtk_box_append(layout.cast(to: GtkBox.self), toasts)
        gtk_box_append(layout.cast(to: GtkBox.self), bar)
        adw_application_window_set_content(baton_adw_application_window(window), layout)
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

    /// Takes down the toast on screen, if any.
    func dismissToast() {
        toast.dismiss()
    }

    /// Shows `text` in a toast, in place of the one shown before; with `button`, a button
    /// that runs the app action it names (`"app.cancel-continue"`), and the toast stays until
    /// it is replaced or dismissed.
    func showToast(_ text: String, button: (label: String, action: String)? = nil) {
        toast.show(text, button: button)
    }
}
