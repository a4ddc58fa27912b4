/// At most ``count`` events per key within any ``interval`` seconds: for what strangers on
/// the network make batond do (pairing prompts, log lines), per device id, address or
/// network.
///
/// Times are seconds on any monotonic clock. The keys it remembers are bounded: past
/// ``maximumKeys``, the key heard from longest ago is forgotten.
struct RateLimit {
    let count: Int
    let interval: Double
    let maximumKeys: Int
    /// The times of the events counted, by key, oldest first.
    private var events: [String: [Double]] = [:]

    init(count: Int, per interval: Double, maximumKeys: Int = 1024) {
        self.count = max(1, count)
        self.interval = interval
        self.maximumKeys = max(1, maximumKeys)
    }

    /// Counts an event for `key` and says whether it is within the limit; an event over the
    /// limit is not counted.
    mutating func allow(_ key: String, now: Double) -> Bool {
        var times = (events[key] ?? []).filter { now - $0 < interval }
        guard times.count < count else {
            events[key] = times
            return false
        }
        times.append(now)
        events[key] = times
        if events.count > maximumKeys { forgetOldest(now: now) }
        return true
    }

    /// Seconds until `key` may have another event; 0 when it may now.
    func wait(for key: String, now: Double) -> Double {
        let times = (events[key] ?? []).filter { now - $0 < interval }
        guard times.count >= count, let oldest = times.first else { return 0 }
        return max(0, oldest + interval - now)
    }

    private mutating func forgetOldest(now: Double) {
        events = events.filter { $0.value.contains { now - $0 < interval } }
        while events.count > maximumKeys,
              let oldest = events.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) })?.key {
            events[oldest] = nil
        }
    }
}
