import Baton
import CGLib

/// Runs the center's deferred work in a GLib idle source on the default main context:
/// after pending input and redraws, once per main-loop idle.
///
/// Work scheduled while the idle callback runs goes to the next idle, never the current one.
@MainActor
public final class GLibScheduler: ActivityScheduler {
    private var queue: [ScheduledWork] = []
    /// The storage of the batch last run, kept for the next one.
    private var spare: [ScheduledWork] = []
    private var sourceID: guint = 0

    /// The priority of the idle source (`G_PRIORITY_DEFAULT_IDLE` by default).
    public let priority: Int32

    public init(priority: Int32 = G_PRIORITY_DEFAULT_IDLE) {
        self.priority = priority
    }

    /// How many pieces of work wait for the next idle.
    public var pendingCount: Int { queue.count }

    public func schedule(_ work: @escaping @MainActor () -> Void) {
        queue.append(ScheduledWork(work))
        guard sourceID == 0 else { return }
        let box = Unmanaged.passRetained(self).toOpaque()
        sourceID = g_idle_add_full(priority, { data in
            guard let data else { return baton_source_remove() }
            let scheduler = Unmanaged<GLibScheduler>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { scheduler.runQueued() }
            return baton_source_remove()
        }, box, { data in
            guard let data else { return }
            Unmanaged<GLibScheduler>.fromOpaque(data).release()
        })
    }

    private func runQueued() {
        sourceID = 0
        var batch = spare
        swap(&batch, &queue)
        for work in batch { work.run() }
        batch.removeAll(keepingCapacity: true)
        spare = batch
    }
}
