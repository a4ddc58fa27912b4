import Baton
import BatonGtk
import CBatonGObject
import CGLib

/// A window of a GObject app: restoring an activity emits `restore-state` on the window's
/// own `BatonActivity`, with the continued one.
@MainActor
final class RestorableWindow: ApplicationWindow {
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        RestoreSignal.emit(on: self.userActivity, continued: userActivity)
    }
}

/// Emits `BatonActivity::restore-state` for responders made from C.
@MainActor
enum RestoreSignal {
    /// Emits `restore-state` on the GObject of `own` (the restoring object's activity), with
    /// the GObject of `continued` (made for the emission when it has none: a document's
    /// activity the framework reopened never went through `continue`); nothing when `own` has
    /// no GObject.
    static func emit(on own: UserActivity?, continued: UserActivity) {
        guard let own, let object = ActivityBridge.existingObject(for: own) else { return }
        if let continuedObject = ActivityBridge.existingObject(for: continued) {
            baton_activity_emit_restore_state(object, continuedObject)
        } else if let continuedObject = ActivityBridge.newObject(for: continued) {
            baton_activity_emit_restore_state(object, continuedObject)
            g_object_unref(UnsafeMutableRawPointer(continuedObject))
        }
    }
}
