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
    /// the GObject of `continued`; nothing when either has none.
    static func emit(on own: UserActivity?, continued: UserActivity) {
        guard let own, let object = ActivityBridge.existingObject(for: own),
              let continuedObject = ActivityBridge.existingObject(for: continued) else { return }
        baton_activity_emit_restore_state(object, continuedObject)
    }
}
