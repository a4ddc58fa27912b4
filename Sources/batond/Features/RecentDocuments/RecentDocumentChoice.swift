/// Which document of the recent list this device offers, when no app that adopts Baton is in
/// use: the one the person is using in an app that does not adopt it.
///
/// - Where the desktop says which window is active (X11 with an EWMH window manager): the most
///   recent entry whose app owns the active window; nothing when another app's window is.
/// - Where it does not (Wayland, or no window manager): the most recent entry, used within
///   ``recentEnough`` seconds, whose app is running.
enum RecentDocumentChoice {
    /// How recently a document must have been used to be offered where the active window is
    /// not known: 10 minutes.
    static let recentEnough = 600.0

    /// The entry to offer among `entries` (newest first).
    ///
    /// - Parameters:
    ///   - activeWindow: the active window, or `nil` when the desktop does not say.
    ///   - running: the names of the programs running now.
    ///   - programOfProcess: the program a process runs.
    ///   - now: seconds since 1970.
    static func choose(from entries: [RecentList.Entry], activeWindow: ActiveWindow?, running: Set<String>,
                       programOfProcess: (Int32) -> String?, now: Double) -> RecentList.Entry? {
        if let activeWindow {
            return entries.first { entry in
                entry.program.map { activeWindow.belongs(to: $0, programOfProcess: programOfProcess) } ?? false
            }
        }
        return entries.first { entry in
            now - entry.usedAt <= recentEnough && entry.program.map(running.contains) == true
        }
    }
}
