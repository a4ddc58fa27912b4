import Baton
import BatonGLib
import BatonGtk
import CBatonGObject
import CGLib
import CGtk
import Logging

/// The Swift half of one `BatonApplication`: the BatonGtk application that wraps the app's
/// `GtkApplication`, and the delegate that turns continuations into the GObject's signals.
///
/// The GObject owns the bridge; the `GtkApplication` owns the GObject.
@MainActor
final class ApplicationBridge: ApplicationDelegate {
    let application: BatonApplication
    /// The `BatonApplication` GObject, not retained: it owns this bridge.
    let object: OpaquePointer

    /// The bridge of the process's application, once Handoff is enabled: windows made before
    /// they join an application find it here.
    static weak var current: ApplicationBridge?

    init(object: OpaquePointer, gtkApplication: UnsafeMutablePointer<GtkApplication>, teamIdentifier: String,
         activityTypes: [String]) {
        self.object = object
        // BatonApplication takes over a reference: the app keeps its own.
        g_object_ref(gtkApplication)
        application = BatonApplication(wrapping: gtkApplication)
        application.delegate = self
        application.onActivate = { [object] in baton_application_emit_activate(object) }
        // A GtkApplication run by its own g_application_run, not BatonApplication.run: bridge
        // libdispatch's main queue into GLib's loop here.
        MainQueueBridge.install()
        application.enableHandoff(teamIdentifier: teamIdentifier, activityTypes: activityTypes)
        Self.current = self
    }

    /// The app's document controller, made when it declares its first document type: its
    /// documents are `BatonDocument`s.
    private(set) lazy var documentController = DesktopDocumentController(
        bundleInfo: BundleInfo(), application: application) { [object] url, type in
            GObjectDocument(fileURL: url, typeName: type.name, application: object)
        }

    nonisolated static func from(_ handle: UnsafeMutableRawPointer) -> ApplicationBridge {
        Unmanaged<ApplicationBridge>.fromOpaque(handle).takeUnretainedValue()
    }

    /// Makes `window` a Baton window of this application, once: its focus feeds election.
    @discardableResult
    func adopt(_ window: UnsafeMutablePointer<GtkWindow>) -> ApplicationWindow {
        if let existing = ApplicationWindow.attached(to: UnsafeMutableRawPointer(window)) { return existing }
        return RestorableWindow(wrapping: window, application: application)
    }

    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        baton_application_emit_will_continue(object, userActivityType) != 0
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        guard let activity = ActivityBridge.newObject(for: userActivity) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(activity)) }
        ActivityBridge.from(baton_activity_get_handle(activity)).restorationHandler = restorationHandler
        return baton_application_emit_continue(object, activity) != 0
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error) {
        let code = (error as? UserActivityError)?.code ?? UserActivityError.handoffFailed("").code
        let handled = baton_application_emit_did_fail(object, userActivityType, gint(code), "\(error)") != 0
        if !handled, (error as? UserActivityError) != .cancelled {
            application.presentError(error)
        }
    }

    /// Hands the objects that restore a continued activity to its restoration handler: each
    /// widget's or window's responder restores it (emitting `restore-state` on its own
    /// activity), and a restored window comes to the front.
    func restore(_ continued: ActivityBridge, widgets: [UnsafeMutablePointer<GtkWidget>]) {
        guard let handler = continued.restorationHandler else {
            Logger(label: "baton.gobject").warning(
                "baton_application_restore: the activity was not given to continue, or was restored already")
            return
        }
        continued.restorationHandler = nil
        let responders: [any UserActivityRestoring] = widgets.compactMap { widget in
            if baton_is_window(widget).isTrue {
                return adopt(widget.cast(to: GtkWindow.self))
            }
            return WidgetResponder.attached(to: widget)
        }
        handler(responders)
    }
}
