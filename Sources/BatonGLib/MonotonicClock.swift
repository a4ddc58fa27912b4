import CGLib

/// GLib's monotonic clock, the one its timers use: seconds that only go forward, whatever
/// the wall clock does.
public enum MonotonicClock {
    /// Seconds since an arbitrary start (the system's boot).
    public static var now: Double { Double(g_get_monotonic_time()) / 1_000_000 }
}
