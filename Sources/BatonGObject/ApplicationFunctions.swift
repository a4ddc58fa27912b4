import Baton
import BatonGtk
import CBatonGObject
import CGLib
import CGtk
import Logging

// The functions of `BatonApplication` and of activities on widgets that the C half forwards
// here (see `src/baton-swift.h`). GTK calls them on the main thread.

/// Wraps `application` in a BatonGtk application with Handoff enabled; returns the
/// retained bridge the GObject owns.
@MainActor @_cdecl("baton_swift_application_create")
func batonSwiftApplicationCreate(_ object: OpaquePointer, _ application: UnsafeMutablePointer<GtkApplication>,
                                 _ team: UnsafePointer<CChar>,
                                 _ types: UnsafePointer<UnsafePointer<CChar>?>) -> UnsafeMutableRawPointer {
    let bridge = ApplicationBridge(object: object, gtkApplication: application,
                                   teamIdentifier: String(cString: team), activityTypes: strings(types))
    return Unmanaged.passRetained(bridge).toOpaque()
}

/// `BatonLaunchReason`: 0 user, 1 continuation.
@MainActor @_cdecl("baton_swift_application_get_launch_reason")
func batonSwiftApplicationGetLaunchReason(_ handle: UnsafeMutableRawPointer) -> UInt32 {
    ApplicationBridge.from(handle).application.launchReason.isContinuation ? 1 : 0
}

@MainActor @_cdecl("baton_swift_application_dup_launch_activity_type")
func batonSwiftApplicationDupLaunchActivityType(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
    guard case .continuation(let type) = ApplicationBridge.from(handle).application.launchReason else { return nil }
    return g_strdup(type)
}

@MainActor @_cdecl("baton_swift_application_dup_activation_token")
func batonSwiftApplicationDupActivationToken(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
    let application = ApplicationBridge.from(handle).application
    return (application.activationToken ?? application.launchActivationToken).flatMap { g_strdup($0) }
}

/// The current activity's GObject, if the app made it (transfer none).
@MainActor @_cdecl("baton_swift_application_get_current_activity")
func batonSwiftApplicationGetCurrentActivity(_ handle: UnsafeMutableRawPointer) -> OpaquePointer? {
    ApplicationBridge.from(handle).application.center.currentActivity.flatMap(ActivityBridge.existingObject)
}

@MainActor @_cdecl("baton_swift_application_restore")
func batonSwiftApplicationRestore(_ handle: UnsafeMutableRawPointer, _ activity: UnsafeMutableRawPointer,
                                  _ widgets: UnsafeMutablePointer<UnsafeMutablePointer<GtkWidget>?>, _ count: guint) {
    let list = (0..<Int(count)).compactMap { widgets[$0] }
    ApplicationBridge.from(handle).restore(ActivityBridge.from(activity), widgets: list)
}

/// A window joined the application: it becomes a Baton window.
@MainActor @_cdecl("baton_swift_application_window_added")
func batonSwiftApplicationWindowAdded(_ handle: UnsafeMutableRawPointer, _ window: UnsafeMutablePointer<GtkWindow>) {
    ApplicationBridge.from(handle).adopt(window)
}

/// Sets the activity of a widget's responder (a window's own, for a window); `nil` lets go.
@MainActor @_cdecl("baton_swift_widget_set_activity")
func batonSwiftWidgetSetActivity(_ widget: UnsafeMutablePointer<GtkWidget>, _ handle: UnsafeMutableRawPointer?) {
    let activity = handle.map { ActivityBridge.from($0).activity }
    if baton_is_window(widget).isTrue {
        let window = widget.cast(to: GtkWindow.self)
        if let adopted = ApplicationWindow.attached(to: UnsafeMutableRawPointer(window)) {
            adopted.userActivity = activity
        } else if let bridge = ApplicationBridge.current {
            bridge.adopt(window).userActivity = activity
        } else {
            Logger(label: "baton.gobject").warning(
                "baton_window_set_activity: no application has Handoff enabled (baton_application_enable_handoff), so the window takes no part")
        }
        return
    }
    // The widget's window takes part in election from now on, even if it is no
    // GtkApplicationWindow (those take part from the start).
    if let root = gtk_widget_get_root(widget), baton_is_window(UnsafeMutableRawPointer(root)).isTrue,
       ApplicationWindow.attached(to: UnsafeMutableRawPointer(root)) == nil, let bridge = ApplicationBridge.current {
        bridge.adopt(UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWindow.self))
    }
    let responder = WidgetResponder.attach(to: widget)
    responder.restoreHandler = { [weak responder] continued in
        RestoreSignal.emit(on: responder?.userActivity, continued: continued)
    }
    responder.userActivity = activity
}
