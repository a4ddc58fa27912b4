import BatonGtk
import CGtk

extension GtkTestCase {
    /// The shown top-level windows titled `title` (dialogs the framework opens, say).
    func visibleWindows(titled title: String) -> [UnsafeMutablePointer<GtkWindow>] {
        let toplevels = gtk_window_get_toplevels()
        var found: [UnsafeMutablePointer<GtkWindow>] = []
        for index in 0..<g_list_model_get_n_items(toplevels) {
            guard let item = g_list_model_get_item(toplevels, index) else { continue }
            let window = baton_window(item)!
            if let current = gtk_window_get_title(window), String(cString: current) == title,
               gtk_widget_get_visible(baton_widget(window)) != 0 {
                found.append(window)
            }
            g_object_unref(item)
        }
        return found
    }

    /// The texts of the labels in `widget`, depth first.
    func labels(in widget: UnsafeMutablePointer<GtkWidget>) -> [String] {
        var texts: [String] = []
        if baton_is_label(widget) != 0, let text = gtk_label_get_text(baton_label(widget)) {
            texts.append(String(cString: text))
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            texts += labels(in: current)
            child = gtk_widget_get_next_sibling(current)
        }
        return texts
    }
}
