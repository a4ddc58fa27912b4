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
/// It follows the list with a file monitor on its folder (GTK replaces the file whole) and the
/// active window (``ActiveWindowWatcher``), never with a timer, and picks the document by
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
    private let listFile: URL
    private let windows = ActiveWindowWatcher()
    private var monitor: UnsafeMutableRawPointer?
    private var lastError: String?
    private var refreshPending: guint = 0

    init(logger: Logger, listFile: URL = RecentList.standardFile) {
        self.logger = logger
        self.listFile = listFile
    }

    /// Starts following the list and the active window, and reads the list once.
    func start() {
        windows.onChange = { [weak self] in self?.refresh() }
        windows.start()
        let folder = g_file_new_for_path(listFile.deletingLastPathComponent().path)
        defer { g_object_unref(UnsafeMutableRawPointer(folder)) }
        var error: UnsafeMutablePointer<GError>?
        if let made = g_file_monitor_directory(folder, G_FILE_MONITOR_WATCH_MOVES, nil, &error) {
            monitor = UnsafeMutableRawPointer(made)
            GObjectSignals.onFileMonitorChange(UnsafeMutableRawPointer(made)) { [weak self] in self?.refreshSoon() }
        } else {
            logger.notice("cannot follow the recent list's folder: \(error.map { String(cString: $0.pointee.message) } ?? "unknown error")")
            g_clear_error(&error)
        }
        refresh()
    }

    /// Stops following.
    func stop() {
        windows.stop()
        GLibSources.cancel(refreshPending)
        refreshPending = 0
        if let monitor {
            g_file_monitor_cancel(monitor.assumingMemoryBound(to: GFileMonitor.self))
            g_object_unref(monitor)
        }
        monitor = nil
    }

    /// Reads the list again shortly: an app writing it sends several changes at once.
    private func refreshSoon() {
        guard refreshPending == 0 else { return }
        refreshPending = GLibSources.once(after: 0.1) { [weak self] in
            self?.refreshPending = 0
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
        current = chosen.map { ($0, ListingID.make()) }
        if let chosen {
            logger.info("offering a document from the recent list, used in \(chosen.program ?? chosen.appName)")
        }
        onChange()
    }

    /// How this device tells which document is in use, and how the list reads now, for
    /// `baton doctor`.
    var state: (knowsActiveWindow: Bool, list: Result<Int, RecentListError>?) {
        let list: Result<Int, RecentListError>?
        do {
            list = FileManager.default.fileExists(atPath: listFile.path) ? .success(try RecentList.read(listFile).entries.count) : nil
        } catch let error as RecentListError {
            list = .failure(error)
        } catch {
            list = .failure(.unreadable("\(error)"))
        }
        return (windows.isAvailable, list)
    }

    /// The apps the recent list names, by the program each runs ("gedit"), with their name in
    /// the list ("Document Viewer"): the apps whose documents may be offered, whether or not
    /// one is now. The most recently used first; none when the list cannot be read.
    var listedApps: [(program: String, appName: String)] {
        var seen = Set<String>()
        return ((try? RecentList.read(listFile).entries) ?? []).compactMap { entry in
            guard let program = entry.program, seen.insert(program).inserted else { return nil }
            return (program, entry.appName)
        }
    }

    private func readList() -> [RecentList.Entry] {
        do {
            let list = try RecentList.read(listFile)
            lastError = nil
            return list.entries.filter { !isOfAdoptingApp($0) }
        } catch {
            let said = "\(error)"
            if said != lastError { logger.notice("\(said)") }
            lastError = said
            return []
        }
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
