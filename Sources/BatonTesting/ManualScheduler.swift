import Baton

/// A scheduler that runs nothing until told to: `schedule` only queues, ``runUntilIdle()``
/// drains, including work queued while it runs. The habit of swift-nio's
/// `EmbeddedEventLoop`, for deterministic tests of elections and update passes.
@MainActor
public final class ManualScheduler: ActivityScheduler {
    private var queue: [ScheduledWork] = []
    private var head = 0

    public init() {}

    /// How many pieces of work are queued and not yet run.
    public var pendingCount: Int { queue.count - head }

    public func schedule(_ work: @escaping @MainActor () -> Void) {
        queue.append(ScheduledWork(work))
    }

    /// Runs the oldest queued work, if any. Returns whether there was some.
    @discardableResult
    public func runNext() -> Bool {
        guard head < queue.count else { return false }
        let work = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        work.run()
        return true
    }

    /// Runs queued work in order until none is left, including work queued meanwhile.
    /// Returns how many pieces ran.
    @discardableResult
    public func runUntilIdle() -> Int {
        var count = 0
        while runNext() { count += 1 }
        return count
    }
}
