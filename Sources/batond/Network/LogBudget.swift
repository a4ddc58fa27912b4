/// What one source may make batond log (a paired device, the unpaired devices at one
/// address, all unpaired devices): at most ``RateLimit/count`` lines per key within any
/// ``RateLimit/interval`` seconds. The first line over the budget is replaced by one saying
/// that lines are dropped, and for how long; the next line let through says how many were.
///
/// So a source makes batond log at most one line more than its budget in any interval,
/// however fast it sends. The keys it remembers are bounded, as ``RateLimit``'s are.
struct LogBudget {
    /// What to do with a line.
    enum Verdict: Equatable {
        /// Log it: `leftOut` lines of its key were dropped since the last one logged.
        case log(leftOut: Int)
        /// Drop it, and log instead that lines of its key are dropped for `seconds`.
        case stop(seconds: Int)
        /// Drop it.
        case drop
    }

    private var limit: RateLimit
    /// The lines dropped since the last one logged, by key.
    private var leftOut: [String: Int] = [:]

    init(lines: Int, per seconds: Double, maximumKeys: Int = 1024) {
        limit = RateLimit(count: lines, per: seconds, maximumKeys: maximumKeys)
    }

    /// Counts a line of `key` at `now` (seconds on a monotonic clock) and says what to do with it.
    mutating func admit(_ key: String, now: Double) -> Verdict {
        if limit.allow(key, now: now) {
            return .log(leftOut: leftOut.removeValue(forKey: key) ?? 0)
        }
        let dropped = (leftOut[key] ?? 0) + 1
        leftOut[key] = dropped
        if leftOut.count > limit.maximumKeys { leftOut = leftOut.filter { limit.wait(for: $0.key, now: now) > 0 } }
        guard dropped == 1 else { return .drop }
        return .stop(seconds: max(1, Int(limit.wait(for: key, now: now).rounded(.up))))
    }
}
