import Dispatch

/// Runs the center's deferred work (elections, update passes) soon, on the main loop.
///
/// `schedule` must not run `work` before it returns: work is always deferred to a later
/// turn of the loop. BatonGtk schedules on a GLib idle source; tests use `ManualScheduler`.
@MainActor
public protocol ActivityScheduler: AnyObject {
    /// Queues `work` to run soon, on the main actor.
    func schedule(_ work: @escaping @MainActor () -> Void)
}

/// Schedules work on libdispatch's main queue: the default of ``ActivityCenter/shared``
/// until a toolkit layer installs its own.
@MainActor
public final class DispatchMainScheduler: ActivityScheduler {
    public init() {}

    public func schedule(_ work: @escaping @MainActor () -> Void) {
        DispatchQueue.main.async {
            MainActor.assumeIsolated { work() }
        }
    }
}

/// A piece of scheduled work as a scheduler keeps it. Stored in an array, a bare closure is
/// boxed in a new thunk each time (arrays keep functions in their most general form); inside
/// this struct it is stored as it is, so queueing work allocates nothing once the array has
/// room.
public struct ScheduledWork {
    /// The work.
    public let run: @MainActor () -> Void

    public init(_ run: @escaping @MainActor () -> Void) {
        self.run = run
    }
}
