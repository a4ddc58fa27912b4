import Baton
import BatonGLib
import CGLib
import CGtk

/// The responder of one `GtkWidget`.
///
/// Attach one with ``attach(to:center:)``; the widget keeps it alive until the widget is
/// finalized. Its next responder is the responder of the nearest ancestor widget that has
/// one, then the widget's ``ApplicationWindow`` (whose chain goes on to the window
/// controller and the application), so reparenting a widget re-links the chain by itself.
/// When GTK destroys the widget, the responder lets go of its activity, which is then
/// invalidated unless another owner holds it.
@MainActor
public final class WidgetResponder: Responder {
    static let dataKey = "baton-widget-responder"

    /// The widget, until GTK destroys it.
    public private(set) var widget: UnsafeMutablePointer<GtkWidget>?
    /// The center asked to re-elect when this responder's place in the chain changes.
    public let center: ActivityCenter

    private init(widget: UnsafeMutablePointer<GtkWidget>, center: ActivityCenter) {
        self.widget = widget
        self.center = center
        super.init()
    }

    /// The responder of `widget`, created and attached on first use.
    @discardableResult
    public static func attach(to widget: UnsafeMutablePointer<GtkWidget>,
                              center: ActivityCenter = .shared) -> WidgetResponder {
        if let existing = attached(to: widget) { return existing }
        let responder = WidgetResponder(widget: widget, center: center)
        GObjectData.attach(responder, to: widget, key: dataKey)
        GObjectSignals.onNotify(widget, "parent") { [weak responder] in
            responder?.center.setNeedsElection()
        }
        GObjectSignals.connect(widget, "destroy") { [weak responder] in
            responder?.widgetWasDestroyed()
        }
        if let root = gtk_widget_get_root(widget),
           let window = ApplicationWindow.attached(to: UnsafeMutableRawPointer(root)) {
            window.focusDidMove()
        }
        return responder
    }

    /// The responder attached to `widget`, if any.
    public static func attached(to widget: UnsafeMutablePointer<GtkWidget>) -> WidgetResponder? {
        GObjectData.attached(WidgetResponder.self, to: widget, key: dataKey)
    }

    /// The responder of `widget` or of its nearest ancestor that has one, stopping at the
    /// window.
    public static func nearest(from widget: UnsafeMutablePointer<GtkWidget>?) -> WidgetResponder? {
        var current = widget
        while let candidate = current, !baton_is_window(candidate).isTrue {
            if let responder = attached(to: candidate) { return responder }
            current = gtk_widget_get_parent(candidate)
        }
        return nil
    }

    /// An explicitly set next responder wins; otherwise the nearest ancestor's responder,
    /// then the widget's window.
    public override var nextResponder: Responder? {
        get {
            if let explicit = super.nextResponder { return explicit }
            guard let widget else { return nil }
            if let ancestor = WidgetResponder.nearest(from: gtk_widget_get_parent(widget)) {
                return ancestor
            }
            guard let root = gtk_widget_get_root(widget) else { return nil }
            return ApplicationWindow.attached(to: UnsafeMutableRawPointer(root))
        }
        set { super.nextResponder = newValue }
    }

    private func widgetWasDestroyed() {
        widget = nil
        userActivity = nil
        center.setNeedsElection()
    }
}

