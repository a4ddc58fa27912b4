import Baton
import CBatonGObject
import CGLib
import Glibc

/// The Swift half of one `BatonActivity`: its `UserActivity`, and the delegate that turns
/// the activity's events into the GObject's signals.
///
/// The GObject owns the bridge (a retained handle, released when the GObject is finalized);
/// the bridge points back at the GObject without retaining it. Widgets keep the GObject of
/// the activity set on them (`baton_widget_set_activity`), so its signals live as long as
/// the activity is managed.
@MainActor
final class ActivityBridge: UserActivityDelegate {
    let activity: UserActivity
    /// The `BatonActivity`, not retained: it owns this bridge.
    var object: OpaquePointer?
    /// The restoration handler of a continuation delivered with this activity, until the app
    /// hands its objects to `baton_application_restore`.
    var restorationHandler: (([any UserActivityRestoring]) -> Void)?

    /// The bridges alive, by their activity, to find an activity's GObject.
    private static var bridges: [ObjectIdentifier: WeakBridge] = [:]

    init(activity: UserActivity) {
        self.activity = activity
        activity.delegate = self
        Self.bridges[ObjectIdentifier(activity)] = WeakBridge(self)
    }

    isolated deinit {
        Self.bridges[ObjectIdentifier(activity)] = nil
    }

    /// The bridge of a handle the C half holds.
    nonisolated static func from(_ handle: UnsafeMutableRawPointer) -> ActivityBridge {
        Unmanaged<ActivityBridge>.fromOpaque(handle).takeUnretainedValue()
    }

    /// The `BatonActivity` of `activity`, if one is alive.
    static func existingObject(for activity: UserActivity) -> OpaquePointer? {
        bridges[ObjectIdentifier(activity)]?.bridge?.object
    }

    /// A new `BatonActivity` (a full reference) for an activity the framework made.
    static func newObject(for activity: UserActivity) -> OpaquePointer? {
        let bridge = ActivityBridge(activity: activity)
        let handle = Unmanaged.passRetained(bridge).toOpaque()
        let object = baton_activity_new_for_handle(activity.activityType, handle)
        bridge.object = object
        return object
    }

    func userActivityWillSave(_ userActivity: UserActivity) {
        guard let object else { return }
        baton_activity_emit_update_state(object)
        baton_activity_notify_user_info(object)
    }

    /// The app continuing the activity opened a stream: its socket (a duplicate; the Swift
    /// stream is closed) goes to `stream-received` as a `GIOStream`.
    func userActivity(_ userActivity: UserActivity, didReceive stream: ContinuationStream) {
        let descriptor = dup(stream.fileDescriptor)
        stream.close()
        guard let object, descriptor >= 0 else {
            if descriptor >= 0 { close(descriptor) }
            return
        }
        baton_activity_emit_stream_received(object, descriptor)
    }

    func userActivity(_ userActivity: UserActivity, wasContinuedOn device: String) {
        guard let object else { return }
        baton_activity_emit_was_continued(object, device)
    }
}

/// A bridge held weakly, in ``ActivityBridge``'s table.
@MainActor
private struct WeakBridge {
    weak var bridge: ActivityBridge?

    init(_ bridge: ActivityBridge) {
        self.bridge = bridge
    }
}
