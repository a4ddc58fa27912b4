import BatonBus
import BatonGLib
import CGLib
import Foundation
import Logging

/// The web domains installed apps claim (``DomainClaim``) and what their sites say of it: each
/// claimed domain's association file is fetched (``AssociationFileFetcher``), kept with its
/// expiry in `domains.json` in batond's state folder, and fetched again when it expires, when
/// an app's entry claims a domain not fetched yet, and when asked (`VerifyDomains`). A claim
/// is verified while the site's latest good file, not yet expired, lists the app's
/// `TEAM.APPID`; a failed fetch leaves that answer standing until it expires. Unverified claims
/// are never used.
@MainActor
final class DomainVerifier {
    /// What batond last learned of one site.
    struct Site: Codable, Equatable {
        /// The entries of the latest good file; `nil` before one came.
        var apps: [String]?
        /// Where that file came from.
        var source: String?
        /// When that file was fetched, and until when it holds.
        var fetched: Date?
        var expires: Date?
        /// When batond last asked, and why that failed (`nil` when it did not).
        var checked: Date?
        var failure: String?
        /// Failed fetches in a row, which space the next tries out.
        var failures = 0
        /// The apps (`TEAM.APPID`) that claimed the site when it was last fetched: when the
        /// entries claim it for others, it is fetched again.
        var claimants: [String]?
    }

    /// A claim and where it stands.
    struct ClaimState: Equatable {
        enum State: String { case verified, failed, pending, invalid }
        let appID: String
        let domain: String
        let host: String?
        let state: State
        /// Why the claim is not verified, or the latest fetch's failure while an earlier
        /// answer still holds.
        let reason: String?
        let site: Site?
    }

    /// How long an answer holds when the site does not say (`Cache-Control: max-age`).
    nonisolated static let standardAge: Double = 24 * 3600
    /// The longest an answer holds, whatever the site says.
    nonisolated static let maximumAge: Double = 7 * 24 * 3600
    /// The shortest an answer holds, by default (`--domain-recheck-minimum`).
    nonisolated static let standardMinimumAge: Double = 3600
    /// The name of the file in batond's state folder.
    static let fileName = "domains.json"

    private(set) var sites: [String: Site] = [:]
    private let file: URL
    /// Fetches a host's association file: ``AssociationFileFetcher/fetch(host:)``.
    private let fetchFile: @Sendable (String) async -> AssociationFileFetcher.Outcome
    /// The shortest time an answer holds: a site's `max-age` below it counts as it.
    let minimumAge: Double
    private let logger: Logger
    /// The fetches under way, by host.
    private var fetches: [String: Task<Void, Never>] = [:]
    private var timer: guint = 0
    /// The file monitor of each `applications` folder (``followApplicationFolders()``), by the
    /// folder's path, with the path it follows: the folder's, or its parent's while it is missing.
    private var monitors: [String: (path: String, monitor: UnsafeMutableRawPointer)] = [:]
    private var entriesPending: guint = 0
    /// The installed apps, read again at each turn (``InstalledApps/all()``); replaceable in tests.
    var installedApps: () -> [InstalledApp] = { InstalledApps.all() }

    init(stateDirectory: URL, minimumAge: Double = standardMinimumAge, logger: Logger,
         fetch: @escaping @Sendable (String) async -> AssociationFileFetcher.Outcome) {
        file = stateDirectory.appendingPathComponent(Self.fileName)
        fetchFile = fetch
        self.minimumAge = minimumAge
        self.logger = logger
        do {
            sites = try PrivateJSONFile.read([String: Site].self, from: file, expected: "the web sites batond fetched") ?? [:]
        } catch {
            logger.warning("starting without the sites fetched before: \(error)")
        }
    }

    /// Looks at the claims now, then again when the next answer is due and whenever an entry
    /// in the `applications` folders changes (followed through file monitors): while no answer
    /// is due, nothing wakes batond for the domains.
    func start() {
        followApplicationFolders()
        refresh()
    }

    /// When the next check is armed for: the earliest claimed site's ``dueDate(_:)``; `nil`
    /// when no app claims a domain, or while every due site is being fetched.
    private(set) var nextCheck: Date?

    /// Arms the one timer for the earliest claimed site that is not being fetched.
    private func scheduleNext(claimants: [String: [String]], now: Date) {
        GLibSources.cancel(timer)
        timer = 0
        nextCheck = claimants.keys.filter { fetches[$0] == nil }.map { dueDate($0) ?? now }.min()
        guard let nextCheck else { return }
        timer = GLibSources.once(after: max(1, nextCheck.timeIntervalSince(now))) { [weak self] in
            self?.timer = 0
            self?.refresh()
        }
    }

    /// Follows each `applications` folder there is (``InstalledApps/applicationFolders``),
    /// or its parent while it is missing, so that a folder made later is followed in its place.
    private func followApplicationFolders() {
        for folder in InstalledApps.applicationFolders {
            let path = FileManager.default.fileExists(atPath: folder.path) ? folder.path : folder.deletingLastPathComponent().path
            guard monitors[folder.path]?.path != path else { continue }
            if let old = monitors.removeValue(forKey: folder.path) { Self.cancel(old.monitor) }
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let file = g_file_new_for_path(path)
            defer { g_object_unref(UnsafeMutableRawPointer(file)) }
            var error: UnsafeMutablePointer<GError>?
            guard let monitor = g_file_monitor_directory(file, G_FILE_MONITOR_WATCH_MOVES, nil, &error) else {
                logger.notice("cannot follow \(path) for apps that claim web domains: \(error.map { String(cString: $0.pointee.message) } ?? "unknown error")")
                g_clear_error(&error)
                continue
            }
            monitors[folder.path] = (path, UnsafeMutableRawPointer(monitor))
            GObjectSignals.onFileMonitorChange(UnsafeMutableRawPointer(monitor)) { [weak self] in self?.entriesChanged() }
        }
    }

    private static func cancel(_ monitor: UnsafeMutableRawPointer) {
        g_file_monitor_cancel(monitor.assumingMemoryBound(to: GFileMonitor.self))
        g_object_unref(monitor)
    }

    /// Looks again shortly after entries change, once for a burst of changes (an install
    /// writes several files).
    private func entriesChanged() {
        guard entriesPending == 0 else { return }
        entriesPending = GLibSources.once(after: 0.5) { [weak self] in
            guard let self else { return }
            entriesPending = 0
            followApplicationFolders()
            refresh()
        }
    }

    /// The most fetches under way at once from ``refresh(now:)``; the rest wait a turn.
    static let concurrentFetches = 4

    /// Fetches each claimed site that is due (``isDue(_:now:)``), a few at a time.
    func refresh(now: Date = Date()) {
        let claimants = claimantsByHost()
        for (host, entries) in claimants.sorted(by: { $0.key < $1.key })
        where fetches[host] == nil && (isDue(host, now: now) || sites[host]?.claimants != entries) {
            guard fetches.count < Self.concurrentFetches else { break }
            fetch(host)
        }
        scheduleNext(claimants: claimants, now: now)
    }

    /// Returns once the fetches under way have answered.
    func waitForFetches() async {
        for task in Array(fetches.values) { await task.value }
    }

    /// Fetches every claimed site now (after any fetch under way, which may have begun before
    /// the site changed), and returns once all have answered.
    func verifyAll() async {
        await waitForFetches()
        for host in claimantsByHost().keys where fetches[host] == nil { fetch(host) }
        await waitForFetches()
    }

    /// Every claim of every installed app, with its state: valid claims first, in the apps'
    /// order, then the entries that are not domains.
    func claimStates(now: Date = Date()) -> [ClaimState] {
        let apps = installedApps()
        var states: [ClaimState] = []
        for app in apps {
            for claim in app.domains { states.append(state(of: claim, for: app, now: now)) }
        }
        for app in apps {
            for entry in app.invalidDomains {
                states.append(ClaimState(appID: app.appID, domain: entry, host: nil, state: .invalid,
                                         reason: "not a host name, or *. and one", site: nil))
            }
        }
        return states
    }

    /// The installed apps whose verified claims cover the page's host: exact claims before
    /// wildcards, each in the apps' order.
    func verifiedApps(for url: URL, now: Date = Date()) -> [InstalledApp] {
        guard let host = url.host?.lowercased(), url.scheme == "https" || url.scheme == "http" else { return [] }
        let apps = installedApps()
        var exact: [InstalledApp] = []
        var wildcard: [InstalledApp] = []
        for app in apps {
            let verified = app.domains.filter { $0.matches(host: host) && state(of: $0, for: app, now: now).state == .verified }
            if verified.contains(where: { !$0.isWildcard }) {
                exact.append(app)
            } else if !verified.isEmpty {
                wildcard.append(app)
            }
        }
        return exact + wildcard
    }

    /// Where one claim of `app` stands.
    func state(of claim: DomainClaim, for app: InstalledApp, now: Date = Date()) -> ClaimState {
        let host = claim.verifyingHost
        let site = sites[host]
        func make(_ state: ClaimState.State, _ reason: String?) -> ClaimState {
            ClaimState(appID: app.appID, domain: claim.description, host: host, state: state, reason: reason, site: site)
        }
        let entry = "\(app.teamID).\(app.appID)"
        guard let site, site.apps != nil || site.failure != nil else { return make(.pending, "not fetched yet") }
        if let apps = site.apps, let expires = site.expires, expires > now {
            guard apps.contains(entry) else {
                return make(.failed, "\(site.source ?? host) does not list \(entry)")
            }
            return make(.verified, site.failure.map { "the latest fetch failed, the answer of \(Self.format(site.fetched)) holds: \($0)" })
        }
        if let failure = site.failure {
            let expired = site.expires.map { " (the answer of \(Self.format(site.fetched)) expired at \(Self.format($0)))" } ?? ""
            return make(.failed, failure + expired)
        }
        return make(.pending, "the answer expired; fetching again")
    }

    /// The hosts whose files confirm the installed apps' claims, each with the apps
    /// (`TEAM.APPID`, sorted) that claim it.
    private func claimantsByHost() -> [String: [String]] {
        var claimants: [String: Set<String>] = [:]
        for app in installedApps() {
            for claim in app.domains { claimants[claim.verifyingHost, default: []].insert("\(app.teamID).\(app.appID)") }
        }
        return claimants.mapValues { $0.sorted() }
    }

    /// Whether `host` should be fetched now: never fetched, its answer expired, or its retry
    /// due (the interval doubling with each failure in a row, up to 6 hours).
    func isDue(_ host: String, now: Date) -> Bool {
        dueDate(host).map { now >= $0 } ?? true
    }

    /// When `host` is next due (``isDue(_:now:)``); `nil` when it has never been fetched.
    func dueDate(_ host: String) -> Date? {
        guard let site = sites[host] else { return nil }
        if site.failure != nil, let checked = site.checked {
            let delay = min(minimumAge, 300) * pow(2, Double(min(site.failures, 8) - 1))
            return checked.addingTimeInterval(min(delay, 6 * 3600))
        }
        return site.expires
    }

    private func fetch(_ host: String) {
        fetches[host] = Task { @MainActor [fetchFile] in
            let outcome = await fetchFile(host)
            record(outcome, for: host)
            fetches[host] = nil
            refresh()
        }
    }

    /// Keeps what a fetch of `host` found, and writes the sites down.
    func record(_ outcome: AssociationFileFetcher.Outcome, for host: String, now: Date = Date()) {
        let claimants = claimantsByHost()
        var site = sites[host] ?? Site()
        site.checked = now
        site.claimants = claimants[host]
        switch outcome {
        case .file(let file, let source, let maximumAge):
            let age = min(Self.maximumAge, max(minimumAge, maximumAge.map(Double.init) ?? Self.standardAge))
            site.apps = file.apps.sorted()
            site.source = source
            site.fetched = now
            site.expires = now.addingTimeInterval(age)
            site.failure = nil
            site.failures = 0
            logger.info("\(source) lists \(file.apps.count) app(s); the answer holds until \(Self.format(site.expires))")
        case .failure(let reason):
            site.failure = reason
            site.failures += 1
            logger.notice("cannot verify the apps of \(host): \(Excerpt.of(reason))")
        }
        sites[host] = site
        sites = sites.filter { claimants[$0.key] != nil }
        do {
            try PrivateJSONFile.write(sites, to: file)
        } catch {
            logger.warning("cannot keep the sites fetched in \(file.path): \(error)")
        }
    }

    /// A date as `baton domains` shows it: ISO 8601, in UTC.
    static func format(_ date: Date?) -> String {
        guard let date else { return "never" }
        return date.formatted(.iso8601)
    }
}
