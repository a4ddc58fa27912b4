import BatonGLib
import BatonGtk
import CAdwaita
import CGtk

/// Builders for the app's pages: libadwaita preference pages, groups and rows. Row titles
/// and subtitles are plain text (device names and activity titles come from other devices).
@MainActor
enum Rows {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    static func page() -> Widget {
        adw_preferences_page_new()!
    }

    static func group(_ title: String, description: String? = nil, in page: Widget) -> Widget {
        let group = adw_preferences_group_new()!
        adw_preferences_group_set_title(baton_adw_preferences_group(group), escaped(title))
        if let description { adw_preferences_group_set_description(baton_adw_preferences_group(group), escaped(description)) }
        adw_preferences_page_add(baton_adw_preferences_page(page), baton_adw_preferences_group(group))
        return group
    }

    /// An `AdwActionRow` in `group`.
    @discardableResult
    static func row(_ title: String, subtitle: String? = nil, icon: String? = nil, in group: Widget) -> Widget {
        let row = actionRow(title, subtitle: subtitle, icon: icon)
        adw_preferences_group_add(baton_adw_preferences_group(group), row)
        return row
    }

    /// An `AdwActionRow` inside `expander` (an ``expander(_:subtitle:icon:in:)`` row).
    @discardableResult
    static func row(_ title: String, subtitle: String? = nil, icon: String? = nil, under expander: Widget) -> Widget {
        let row = actionRow(title, subtitle: subtitle, icon: icon)
        adw_expander_row_add_row(baton_adw_expander_row(expander), row)
        return row
    }

    /// An `AdwExpanderRow` in `group`: a row whose details show when the person opens it.
    static func expander(_ title: String, subtitle: String? = nil, icon: String? = nil, in group: Widget) -> Widget {
        let row = adw_expander_row_new()!
        adw_preferences_row_set_use_markup(baton_adw_preferences_row(row), 0)
        adw_preferences_row_set_title(baton_adw_preferences_row(row), title)
        if let subtitle { adw_expander_row_set_subtitle(baton_adw_expander_row(row), escaped(subtitle)) }
        if let icon { adw_expander_row_add_prefix(baton_adw_expander_row(row), iconImage(icon)) }
        adw_preferences_group_add(baton_adw_preferences_group(group), row)
        return row
    }

    /// An icon at 32 pixels, as GNOME shows apps' and devices' icons in lists.
    static func iconImage(_ name: String, size: Int32 = 16) -> Widget {
        let image = gtk_image_new_from_icon_name(name)!
        gtk_image_set_pixel_size(OpaquePointer(image), size)
        if size >= 32 { gtk_widget_add_css_class(image, "lowres-icon") }
        return image
    }

    private static func actionRow(_ title: String, subtitle: String?, icon: String?) -> Widget {
        let row = adw_action_row_new()!
        adw_preferences_row_set_use_markup(baton_adw_preferences_row(row), 0)
        adw_preferences_row_set_title(baton_adw_preferences_row(row), title)
        if let subtitle {
            adw_action_row_set_subtitle(baton_adw_action_row(row), subtitle)
            adw_action_row_set_subtitle_lines(baton_adw_action_row(row), 0)
        }
        if let icon { adw_action_row_add_prefix(baton_adw_action_row(row), iconImage(icon)) }
        return row
    }

    /// An `AdwEntryRow` in `group` holding `text`, with an apply button: `apply` runs with
    /// the text when the person applies it (the button, or Enter). An underscore in `title`
    /// marks its mnemonic.
    @discardableResult
    static func entry(_ title: String, text: String, in group: Widget,
                      _ apply: @escaping @MainActor (String) -> Void) -> Widget {
        let row = adw_entry_row_new()!
        adw_preferences_row_set_use_markup(baton_adw_preferences_row(row), 0)
        adw_preferences_row_set_title(baton_adw_preferences_row(row), title)
        adw_preferences_row_set_use_underline(baton_adw_preferences_row(row), 1)
        gtk_editable_set_text(OpaquePointer(row), text)
        adw_entry_row_set_show_apply_button(baton_adw_entry_row(row), 1)
        GObjectSignals.connect(UnsafeMutableRawPointer(row), "apply") {
            apply(gtk_editable_get_text(OpaquePointer(row)).map { String(cString: $0) } ?? "")
        }
        adw_preferences_group_add(baton_adw_preferences_group(group), row)
        return row
    }

    /// Puts `widget` at the end of `row`; with `activatedByRow`, activating the row (a click on
    /// its title, Enter, Space) activates the widget, as GNOME's switch rows do.
    static func suffix(_ widget: Widget, to row: Widget, activatedByRow: Bool = false) {
        gtk_widget_set_valign(widget, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(baton_adw_action_row(row), widget)
        if activatedByRow {
            adw_action_row_set_activatable_widget(baton_adw_action_row(row), widget)
        }
    }

    /// A button that runs `action` when clicked.
    static func button(_ label: String, classes: [String] = [], _ action: @escaping @MainActor () -> Void) -> Widget {
        let button = gtk_button_new_with_mnemonic(label)!
        for name in classes { gtk_widget_add_css_class(button, name) }
        GObjectSignals.connect(UnsafeMutableRawPointer(button), "clicked", action)
        return button
    }

    /// A switch showing `isOn`; `changed` runs with the new state when the person flips it.
    static func toggle(_ isOn: Bool, _ changed: @escaping @MainActor (Bool) -> Void) -> Widget {
        let toggle = gtk_switch_new()!
        gtk_switch_set_active(OpaquePointer(toggle), isOn ? 1 : 0)
        GObjectSignals.onNotify(UnsafeMutableRawPointer(toggle), "active") {
            changed(gtk_switch_get_active(OpaquePointer(toggle)) != 0)
        }
        return toggle
    }

    /// `text` with Pango markup escaped, for the titles libadwaita reads as markup.
    static func escaped(_ text: String) -> String {
        guard let escaped = g_markup_escape_text(text, -1) else { return "" }
        defer { g_free(escaped) }
        return String(cString: escaped)
    }
}
