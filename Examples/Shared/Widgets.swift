import CAdwaita
import CGtk

/// Small constructors for the widgets the example apps build, so window code reads as layout.
@MainActor
public enum Widgets {
    public typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// Which way a box lays out its children.
    public enum Orientation: Sendable {
        case horizontal, vertical
    }

    public static func box(_ orientation: Orientation, spacing: Int32 = 0, classes: [String] = []) -> Widget {
        let box = gtk_box_new(orientation == .horizontal ? GTK_ORIENTATION_HORIZONTAL : GTK_ORIENTATION_VERTICAL, spacing)!
        addClasses(classes, to: box)
        return box
    }

    public static func append(_ child: Widget, to box: Widget) {
        gtk_box_append(box.cast(to: GtkBox.self), child)
    }

    public static func label(_ text: String, classes: [String] = [], xalign: Float = 0, wrap: Bool = false) -> Widget {
        let label = gtk_label_new(text)!
        gtk_label_set_xalign(OpaquePointer(label), xalign)
        if wrap {
            gtk_label_set_wrap(OpaquePointer(label), 1)
        } else {
            gtk_label_set_ellipsize(OpaquePointer(label), PANGO_ELLIPSIZE_END)
        }
        addClasses(classes, to: label)
        return label
    }

    public static func setLabel(_ label: Widget, _ text: String) {
        gtk_label_set_text(OpaquePointer(label), text)
    }

    public static func entry(placeholder: String) -> Widget {
        let entry = gtk_entry_new()!
        gtk_entry_set_placeholder_text(entry.cast(to: GtkEntry.self), placeholder)
        gtk_widget_set_hexpand(entry, 1)
        return entry
    }

    public static func text(of editable: Widget) -> String {
        gtk_editable_get_text(OpaquePointer(editable)).map { String(cString: $0) } ?? ""
    }

    public static func setText(_ editable: Widget, _ text: String) {
        gtk_editable_set_text(OpaquePointer(editable), text)
    }

    public static func button(label: String? = nil, icon: String? = nil, action: String? = nil,
                       tooltip: String? = nil, classes: [String] = []) -> Widget {
        let button: Widget
        if let icon {
            button = gtk_button_new_from_icon_name(icon)!
        } else {
            button = gtk_button_new_with_label(label ?? "")!
        }
        if let label, icon != nil {
            gtk_button_set_label(button.cast(to: GtkButton.self), label)
        }
        if label != nil { gtk_button_set_use_underline(button.cast(to: GtkButton.self), 1) }
        if let action { gtk_actionable_set_action_name(OpaquePointer(button), action) }
        if let tooltip { gtk_widget_set_tooltip_text(button, tooltip) }
        addClasses(classes, to: button)
        return button
    }

    public static func scrolled(_ child: Widget) -> Widget {
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(OpaquePointer(scrolled), child)
        gtk_scrolled_window_set_policy(OpaquePointer(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_widget_set_vexpand(scrolled, 1)
        gtk_widget_set_hexpand(scrolled, 1)
        return scrolled
    }

    /// An `AdwStatusPage`: an icon, a title and a line of description, for an empty place.
    public static func statusPage(icon: String, title: String, description: String) -> Widget {
        let page = adw_status_page_new()!
        adw_status_page_set_icon_name(baton_adw_status_page(page), icon)
        adw_status_page_set_title(baton_adw_status_page(page), title)
        adw_status_page_set_description(baton_adw_status_page(page), description)
        addClasses(["compact"], to: page)
        return page
    }

    public static func addClasses(_ classes: [String], to widget: Widget) {
        for name in classes { gtk_widget_add_css_class(widget, name) }
    }

    public static func margins(_ widget: Widget, _ value: Int32) {
        gtk_widget_set_margin_top(widget, value)
        gtk_widget_set_margin_bottom(widget, value)
        gtk_widget_set_margin_start(widget, value)
        gtk_widget_set_margin_end(widget, value)
    }

    /// The whole text of a text view's buffer.
    public static func text(ofBuffer buffer: UnsafeMutablePointer<GtkTextBuffer>) -> String {
        var start = GtkTextIter()
        var end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        guard let text = gtk_text_buffer_get_text(buffer, &start, &end, 0) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }
}
