import Baton
import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

/// The document a person is using in an app that does not adopt Baton, from the desktop's
/// recent list (``RecentList``), offered as this device's activity when no adopting app is in
/// use: "report.pdf — Document Viewer", of type ``activityType``.
///
/// It reads GTK's shared list and GNOME Text Editor's own (which keeps its files there, never
/// in the shared one), follows them with a file monitor on each one's folder (GTK replaces
/// the file whole) and the active window (``ActiveWindowWatcher``), never with a timer, and
/// picks the document by
/// ``RecentDocumentChoice``. Its payload names the file as a document activity does
/// (``UserActivity/documentURLKey``), so the file reaches the other device as any continued
/// document does, and the app that used it (``appKey``, ``programKey``) so the same app
/// opens it there.
@MainActor
final class RecentDocuments {
    /// The activity type of a document from the recent list.
    static let activityType = "org.baton.recent-document"
    /// The team its offers are listed under.
    static let teamID = "org.baton.desktop"
    /// `userInfo` keys: the app's name in the list, the program its command runs, and the
    /// document's MIME type.
    static let appKey = "app", programKey = "program", mimeTypeKey = "mimeType"

    /// Whether an entry is of an app that adopts Baton, running now: its own activity speaks
    /// for it, so its entries (BatonGtk's apps write theirs too) are never offered from here.
    var isOfAdoptingApp: (RecentList.Entry) -> Bool = { _ in false }

    /// The document offered, if any.
    private(set) var current: (entry: RecentList.Entry, listingID: String)?
    /// Runs when ``current`` changes.
    var onChange: () -> Void = {}
    /// Whether the person allows offering recent documents (the `recent-documents` setting).
    var isEnabled: () -> Bool = { true }
    /// Whether the person blocked the app running `program`: its documents are never offered.
    var isBlocked: (_ program: String) -> Bool = { _ in false }

    private let logger: Logger
    private let listFiles: [URL]
    private let windows = ActiveWindowWatcher()
    /// The file monitors, by the folder each follows.
    private var monitors: [String: UnsafeMutableRawPointer] = [:]
    private var lastErrors: [URL: String] = [:]
    /// Each list's entries at its last good reading, kept while it cannot be read, for
    /// ``unreadableGrace`` at most.
    private var lastEntries: [URL: [RecentList.Entry]] = [:]
    /// When each list that cannot be read was first found so (GLib's monotonic seconds).
    private var unreadableSince: [URL: Double] = [:]
    private var refreshPending: guint = 0
    private var graceEnding: guint = 0

    /// How long a list that cannot be read keeps its last good reading: long enough for an
    /// app rewriting it in place, short enough that a person who stops the list (a link to
    /// `/dev/null`, an empty file) is not offered what it held before.
    static let unreadableGrace = 5.0

    /// - Parameter listFiles: the lists read: GTK's shared one and GNOME Text Editor's own
    ///   (``RecentList/standardFiles``).
    init(logger: Logger, listFiles: [URL] = RecentList.standardFiles) {
        self.logger = logger
        self.listFiles = listFiles
    }

    /// Starts following the lists and the active window, and reads the lists once.
    func start() {
        windows.onChange = { [weak self] in self?.refresh() }
        windows.start()
        followFolders()
        refresh()
    }

    /// Follows each list's folder that exists and is not followed yet. A folder made later
    /// (GNOME Text Editor's, at its first save) is followed once its parent's monitor, on the
    /// data folder, says it appeared.
    private func followFolders() {
        for folder in Set(listFiles.map { $0.deletingLastPathComponent().path }) where monitors[folder] == nil {
            var status = stat()
            guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { continue }
            let file = g_file_new_for_path(folder)
            defer { g_object_unref(UnsafeMutableRawPointer(file)) }
            var error: UnsafeMutablePointer<GError>?
            if let made = g_file_monitor_directory(file, G_FILE_MONITOR_WATCH_MOVES, nil, &error) {
                monitors[folder] = UnsafeMutableRawPointer(made)
                GObjectSignals.onFileMonitorChange(UnsafeMutableRawPointer(made)) { [weak self] in self?.refreshSoon() }
            } else {
                logger.notice("cannot follow a recent list's folder: \(error.map { String(cString: $0.pointee.message) } ?? "unknown error")")
                g_clear_error(&error)
            }
        }
    }

    /// Stops following.
    func stop() {
        windows.stop()
        GLibSources.cancel(refreshPending)
        refreshPending = 0
        GLibSources.cancel(graceEnding)
        graceEnding = 0
        for monitor in monitors.values {
            g_file_monitor_cancel(monitor.assumingMemoryBound(to: GFileMonitor.self))
            g_object_unref(monitor)
        }
        monitors = [:]
    }

    /// Reads the lists again shortly, once for any number of calls: an app writing a list sends
    /// several changes at once, and apps register in bursts.
    func refreshSoon() {
        guard refreshPending == 0 else { return }
        refreshPending = GLibSources.once(after: 0.1) { [weak self] in
            self?.refreshPending = 0
            self?.followFolders()
            self?.refresh()
        }
    }

    /// Reads the list and the active window, and chooses the document to offer.
    func refresh() {
        let chosen: RecentList.Entry?
        if isEnabled() {
            let offerable = readList().filter { entry in entry.program.map { !isBlocked($0) } ?? false }
            chosen = RecentDocumentChoice.choose(from: offerable, activeWindow: windows.isAvailable ? windows.current : nil,
                                                 running: windows.isAvailable ? [] : RunningPrograms.names(),
                                                 programOfProcess: RunningPrograms.program(of:),
                                                 now: Date().timeIntervalSince1970)
        } else {
            chosen = nil
        }
        guard chosen != current?.entry else { return }
        if let chosen, let current, Self.isSameOffer(chosen, current.entry) {
            // Used again (saved, reopened): the same offer, with the same id, for the other devices.
            self.current = (chosen, current.listingID)
            return
        }
        current = chosen.map { ($0, ListingID.make()) }
        if let chosen {
            logger.info("offering a document from the recent list, used in \(chosen.program ?? chosen.appName)")
        } else {
            logger.info("offering no document from the recent list")
        }
        onChange()
    }

    /// How this device tells which document is in use, and how the lists read now, for
    /// `baton doctor`: the entries of the lists there are, or why one cannot be read; nil
    /// when there is no list.
    var state: (knowsActiveWindow: Bool, list: Result<Int, RecentListError>?) {
        var list: Result<Int, RecentListError>?
        for file in listFiles where FileManager.default.fileExists(atPath: file.path) {
            do {
                let count = try RecentList.read(file).entries.count
                if case .success(let before) = list { list = .success(before + count) } else if list == nil { list = .success(count) }
            } catch let error as RecentListError {
                list = .failure(error)
            } catch {
                list = .failure(.unreadable("\(error)"))
            }
        }
        return (windows.isAvailable, list)
    }

    /// The apps the recent lists name, by the program each runs ("gedit"), with their name in
    /// the list ("Document Viewer"): the apps whose documents may be offered, whether or not
    /// one is now. The most recently used first; none of a list that cannot be read.
    var listedApps: [(program: String, appName: String)] {
        var seen = Set<String>()
        let entries = listFiles.flatMap { (try? RecentList.read($0).entries) ?? [] }.sorted { $0.usedAt > $1.usedAt }
        return entries.compactMap { entry in
            guard let program = entry.program, seen.insert(program).inserted else { return nil }
            return (program, entry.appName)
        }
    }

    /// The lists' entries, but those of an app that adopts Baton running now
    /// (``isOfAdoptingApp``), the most recently used first; of a list that cannot be read (half
    /// written by an app that rewrites it in place, over the size limit, a link, not XML),
    /// those of its last good reading for ``unreadableGrace``, so a list caught mid-write
    /// changes nothing, then none. A list that is gone is empty.
    private func readList() -> [RecentList.Entry] {
        let now = Double(g_get_monotonic_time()) / 1_000_000
        for file in listFiles {
            do {
                lastEntries[file] = try RecentList.read(file).entries
                lastErrors[file] = nil
                unreadableSince[file] = nil
            } catch {
                let said = "\(error)"
                if said != lastErrors[file] { logger.notice("\(said)") }
                lastErrors[file] = said
                let since = unreadableSince[file] ?? now
                unreadableSince[file] = since
                if now - since >= Self.unreadableGrace {
                    lastEntries[file] = nil
                } else if lastEntries[file] != nil, graceEnding == 0 {
                    graceEnding = GLibSources.once(after: Self.unreadableGrace - (now - since) + 0.05) { [weak self] in
                        self?.graceEnding = 0
                        self?.refresh()
                    }
                }
            }
        }
        return listFiles.flatMap { lastEntries[$0] ?? [] }.filter { !isOfAdoptingApp($0) }
            .sorted { $0.usedAt > $1.usedAt }
    }

    /// Whether two entries make the same offer: the same file in the same app, whenever used.
    static func isSameOffer(_ one: RecentList.Entry, _ other: RecentList.Entry) -> Bool {
        one.path == other.path && one.appName == other.appName && one.exec == other.exec && one.mimeType == other.mimeType
    }

    /// The offer's summary: the file's name and the app's ("report.pdf — Document Viewer").
    var summary: ActivitySummary? {
        current.map { ActivitySummary(activityType: Self.activityType, title: Self.title(of: $0.entry)) }
    }

    static func title(of entry: RecentList.Entry) -> String {
        "\((entry.path as NSString).lastPathComponent) — \(entry.appName)"
    }

    /// The offer's payload: the file's URL as a document activity names it, and its app.
    func payload() throws -> [UInt8] {
        guard let entry = current?.entry else {
            throw ServiceError.activity(.handoffFailed("no document from the recent list is offered now"))
        }
        var userInfo: [String: UserInfoValue] = [
            UserActivity.documentURLKey: .url(URL(fileURLWithPath: entry.path)),
            Self.appKey: .string(entry.appName),
        ]
        if let program = entry.program { userInfo[Self.programKey] = .string(program) }
        if let mime = entry.mimeType { userInfo[Self.mimeTypeKey] = .string(mime) }
        return try UserActivityPayload(activityType: Self.activityType, title: Self.title(of: entry), userInfo: userInfo)
            .encodedBytes()
    }
}
