import CGLib
import Glibc

/// Runs the jobs Swift concurrency gives its global executor on a GLib thread pool rather
/// than libdispatch's, so that a quiet daemon does not wake up.
///
/// Every continuation resumes through the global executor before it hops back to its actor,
/// so any `await` on a GLib callback reaches it. On Linux, libdispatch's global executor
/// starts a monitor of its thread pool with its first worker thread, and that monitor wakes
/// the process every second for as long as it runs. This pool's threads wait on a queue
/// and wake only when there is a job. Delayed jobs that reach the runtime's delay hooks wait
/// on a GLib timeout of the default main context, whose loop the program must run; but
/// `Task.sleep` itself goes to libdispatch's timers in Swift 6.3 without asking them, so a
/// program that installs this sleeps with `GLibSources.sleep(seconds:)` instead.
///
/// Installed through the concurrency runtime's hooks (`swift_task_enqueueGlobal_hook` and
/// its two delayed forms), as swift-nio installs its event loops. Install it once, at the
/// start of the program, before any task runs.
public enum GLibGlobalExecutor {
    /// The most jobs that run at once: blocking work (a file read in a detached task) takes
    /// a thread while it runs.
    public static let threads: Int32 = 4

    /// Routes the global executor's jobs to the pool. Returns false, changing nothing, when
    /// the runtime has no such hooks.
    @discardableResult
    public static func install() -> Bool {
        guard let runtime = dlopen(nil, RTLD_NOW) else { return false }
        guard let now = dlsym(runtime, "swift_task_enqueueGlobal_hook"),
              let delayed = dlsym(runtime, "swift_task_enqueueGlobalWithDelay_hook"),
              let deadline = dlsym(runtime, "swift_task_enqueueGlobalWithDeadline_hook"),
              GlobalJobPool.shared.isRunning
        else { return false }
        now.assumingMemoryBound(to: EnqueueHook?.self).pointee = { job, _ in
            GlobalJobPool.shared.enqueue(job)
        }
        delayed.assumingMemoryBound(to: EnqueueWithDelayHook?.self).pointee = { nanoseconds, job, _ in
            GlobalJobPool.shared.enqueue(job, afterNanoseconds: nanoseconds)
        }
        deadline.assumingMemoryBound(to: EnqueueWithDeadlineHook?.self).pointee = {
            seconds, nanoseconds, _, _, clock, job, _ in
            GlobalJobPool.shared.enqueue(job, afterNanoseconds: GlobalJobPool.nanoseconds(
                untilSeconds: seconds, nanoseconds: nanoseconds, clock: clock))
        }
        return true
    }

    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias EnqueueHook = @convention(thin) (UnownedJob, Original) -> Void
    typealias OriginalWithDelay = @convention(thin) (UInt64, UnownedJob) -> Void
    typealias EnqueueWithDelayHook = @convention(thin) (UInt64, UnownedJob, OriginalWithDelay) -> Void
    typealias OriginalWithDeadline = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
    typealias EnqueueWithDeadlineHook = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob,
                                                           OriginalWithDeadline) -> Void
}

/// The GLib thread pool the global executor's jobs run on, and the task executor they run as.
final class GlobalJobPool: TaskExecutor, @unchecked Sendable {
    static let shared = GlobalJobPool()

    /// Set once in `init`, then only read: GLib's pool is safe to push to from any thread.
    private let pool: UnsafeMutablePointer<GThreadPool>?

    var isRunning: Bool { pool != nil }

    private init() {
        var error: UnsafeMutablePointer<GError>?
        pool = g_thread_pool_new({ data, _ in
            guard let data else { return }
            let job = unsafeBitCast(data, to: UnownedJob.self)
            job.runSynchronously(on: GlobalJobPool.shared.asUnownedTaskExecutor())
        }, nil, GLibGlobalExecutor.threads, 1, &error)
        g_clear_error(&error)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    func enqueue(_ job: UnownedJob) {
        var error: UnsafeMutablePointer<GError>?
        g_thread_pool_push(pool, unsafeBitCast(job, to: UnsafeMutableRawPointer.self), &error)
        g_clear_error(&error)
    }

    /// Queues `job` once `nanoseconds` have passed, on a timeout of the default main context.
    func enqueue(_ job: UnownedJob, afterNanoseconds nanoseconds: UInt64) {
        let milliseconds = guint(min((nanoseconds + 999_999) / 1_000_000, UInt64(guint.max)))
        g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            if let data { GlobalJobPool.shared.enqueue(unsafeBitCast(data, to: UnownedJob.self)) }
            return baton_source_remove()
        }, unsafeBitCast(job, to: UnsafeMutableRawPointer.self), nil)
    }

    /// Nanoseconds from now until `seconds` and `nanoseconds` on the runtime's clock `clock`
    /// (1: continuous, which counts while suspended; 2: suspending; 3: the wall clock), 0 once
    /// passed.
    static func nanoseconds(untilSeconds seconds: Int64, nanoseconds: Int64, clock: Int32) -> UInt64 {
        var now = timespec()
        clock_gettime(clock == 1 ? CLOCK_BOOTTIME : clock == 3 ? CLOCK_REALTIME : CLOCK_MONOTONIC, &now)
        let remaining = (seconds - Int64(now.tv_sec)) * 1_000_000_000 + (nanoseconds - Int64(now.tv_nsec))
        return remaining > 0 ? UInt64(remaining) : 0
    }
}
