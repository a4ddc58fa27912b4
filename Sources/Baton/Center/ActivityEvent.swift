/// Something that happened to an activity, as the center reports it to its observers.
///
/// The `BATON_TRACE` trace writes one line per event; the service client publishes the
/// current activity from them.
@MainActor
public enum ActivityEvent {
    /// The activity became current.
    case becameCurrent(UserActivity)
    /// The activity stopped being current.
    case resigned(UserActivity)
    /// An update pass saved the activity; `userInfo` holds the result.
    case updated(UserActivity)
    /// The activity's title, eligibility, webpage URL or expiration changed.
    case summaryChanged(UserActivity)
    /// The activity was invalidated.
    case invalidated(UserActivity)
    /// A continuation of this type began.
    case willContinue(activityType: String)
    /// A continuation of this type is held up, and says how it stands.
    case progress(ContinuationProgress)
    /// A continuation delivered the activity to the application delegate.
    case continued(UserActivity)
    /// A continuation of this type failed.
    case failed(activityType: String, error: any Error)
    /// A restoration handler restored the activity into the objects it was given.
    case restored(UserActivity)
    /// Another device continued the activity.
    case wasContinued(UserActivity)

    /// The event's name in the trace.
    public var name: String {
        switch self {
        case .becameCurrent: return "current"
        case .resigned: return "resigned"
        case .updated: return "updated"
        case .summaryChanged: return "changed"
        case .invalidated: return "invalidated"
        case .willContinue: return "will-continue"
        case .progress: return "progress"
        case .continued: return "continued"
        case .failed: return "failed"
        case .restored: return "restored"
        case .wasContinued: return "was-continued"
        }
    }

    /// The activity the event is about, where there is one.
    public var activity: UserActivity? {
        switch self {
        case .becameCurrent(let activity), .resigned(let activity), .updated(let activity),
            .summaryChanged(let activity), .invalidated(let activity), .continued(let activity),
            .restored(let activity), .wasContinued(let activity):
            return activity
        case .willContinue, .progress, .failed:
            return nil
        }
    }

    /// The activity type the event is about.
    public var activityType: String {
        switch self {
        case .willContinue(let type), .failed(let type, _): return type
        case .progress(let progress): return progress.activityType
        default: return activity?.activityType ?? ""
        }
    }
}

/// Keeps an observer registered with an ``ActivityCenter``; ``cancel()`` removes it.
@MainActor
public final class ActivityObservation {
    private weak var center: ActivityCenter?
    private let id: Int

    init(center: ActivityCenter, id: Int) {
        self.center = center
        self.id = id
    }

    /// Stops the observer from being called.
    public func cancel() {
        center?.removeObserver(id)
        center = nil
    }
}
