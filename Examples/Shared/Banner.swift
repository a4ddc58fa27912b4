import BatonGtk
import CGtk

/// An in-app banner at the top of a window: a spinner while something is on its way, a
/// message, and a button to dismiss it. It keeps a reference on its widgets, so it stays
/// safe to call after GTK destroyed the window it was in.
@MainActor
public final class Banner {
    public let widget: Widgets.Widget
    private let spinner: Widgets.Widget
    private let label: Widgets.Widget

    public init() {
        widget = gtk_revealer_new()!
        g_object_ref_sink(UnsafeMutableRawPointer(widget))
        let content = Widgets.box(.horizontal, spacing: 12, classes: ["toolbar", "banner"])
        Widgets.margins(content, 6)
        spinner = gtk_spinner_new()!
        label = Widgets.label("", wrap: true)
        gtk_widget_set_hexpand(label, 1)
        let close = Widgets.button(icon: "window-close-symbolic", tooltip: "Dismiss", classes: ["flat"])
        Widgets.append(spinner, to: content)
        Widgets.append(label, to: content)
        Widgets.append(close, to: content)
        gtk_revealer_set_child(OpaquePointer(widget), content)
        GObjectSignals.connect(close, "clicked") { [weak self] in self?.hide() }
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(widget))
    }

    /// The text shown, or nil while hidden.
    public private(set) var message: String?

    public func showProgress(_ text: String) {
        show(text, busy: true, classes: [])
    }

    public func showError(_ text: String) {
        show(text, busy: false, classes: ["error"])
    }

    public func showInfo(_ text: String) {
        show(text, busy: false, classes: [])
    }

    public func hide() {
        message = nil
        gtk_spinner_stop(OpaquePointer(spinner))
        gtk_revealer_set_reveal_child(OpaquePointer(widget), 0)
    }

    private func show(_ text: String, busy: Bool, classes: [String]) {
        message = text
        Widgets.setLabel(label, text)
        gtk_widget_remove_css_class(label, "error")
        Widgets.addClasses(classes, to: label)
        gtk_widget_set_visible(spinner, busy ? 1 : 0)
        if busy { gtk_spinner_start(OpaquePointer(spinner)) } else { gtk_spinner_stop(OpaquePointer(spinner)) }
        gtk_revealer_set_reveal_child(OpaquePointer(widget), 1)
    }
}
