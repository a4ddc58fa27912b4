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
///
/// The class is final: give a widget's activity its data with ``updateHandler`` (run where a
/// subclass would override `updateUserActivityState`, in each update pass after `userInfo`
/// was emptied) and take it back with ``restoreHandler``:
///
/// ```swift
/// let responder = WidgetResponder.attach(to: searchEntry)
/// responder.userActivity = UserActivity(activityType: "org.example.search")
/// responder.updateHandler = { activity in
///     activity.addUserInfoEntries(from: ["query": .string(String(cString: gtk_editable_get_text(OpaquePointer(searchEntry))))])
/// }
/// responder.markNeedsSaveOnChange(of: searchEntry)
/// ```
@MainActor
public final class WidgetResponder: Responder {
    static let dataKey = "baton-widget-responder"

    /// Fills the activity this responder owns, in each update pass (its
    /// `updateUserActivityState`).
    public var updateHandler: (@MainActor (UserActivity) -> Void)?
    /// Puts a continued activity's state into the widget (its `restoreUserActivityState`),
    /// when the responder is handed to a restoration handler.
    public var restoreHandler: (@MainActor (UserActivity) -> Void)?

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

    public override func updateUserActivityState(_ userActivity: UserActivity) {
        updateHandler?(userActivity)
    }

    public override func restoreUserActivityState(_ userActivity: UserActivity) {
        restoreHandler?(userActivity)
    }

    private func widgetWasDestroyed() {
        widget = nil
        userActivity = nil
        center.setNeedsElection()
    }
}

