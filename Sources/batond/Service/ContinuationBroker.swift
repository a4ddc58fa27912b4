import Baton
import BatonBus
import BatonGLib
import Foundation
import BatonPeer
import CGLib
import Logging

/// Where an activity to continue comes from.
enum ActivitySource {
    /// A registered app's current activity: fetched by asking the app to save now.
    case local(RegisteredApp, PublishedActivity)
    /// A listed offer, whose payload batond holds.
    case offer(Offer)
    /// A payload given by the caller (`ContinuePayload`).
    case payload([UInt8], UserActivityPayload, teamID: String?)

    var activityType: String {
        switch self {
        case .local(_, let published): return published.summary.activityType
        case .offer(let offer): return offer.summary.activityType
        case .payload(_, let payload, _): return payload.activityType
        }
    }

    var teamID: String? {
        switch self {
        case .local(let app, _): return app.teamID
        case .offer(let offer): return offer.teamID
        case .payload(_, _, let teamID): return teamID
        }
    }

    /// The web page to open where no app continues the activity.
    var webpageURL: URL? {
        switch self {
        case .local(_, let published): return published.summary.webpageURL
        case .offer(let offer): return offer.summary.webpageURL
        case .payload(_, let payload, _): return payload.webpageURL
        }
    }

    /// The activity's title, if it has one.
    var title: String? {
        switch self {
        case .local(_, let published): return published.summary.title
        case .offer(let offer): return offer.summary.title
        case .payload(_, let payload, _): return payload.title
        }
    }

    /// The bus name of the app the activity comes from, which must not continue it itself.
    var originBusName: String? {
        if case .local(let app, _) = self { return app.busName }
        return nil
    }

    /// The app id of the app the activity comes from, when the source says: its claimants of
    /// that id go first.
    var originAppID: String? {
        switch self {
        case .local(let app, _): return app.appID
        case .offer(let offer): return offer.appID
        case .payload: return nil
        }
    }

    /// Whether the activity comes from another device (a paired device's offer): only an app
    /// verified for its type may receive it. This user's own activities (local apps,
    /// `baton offer`, `ContinuePayload`) may go to an unverified claimant when no verified or
    /// installed one continues them.
    var comesFromAnotherDevice: Bool {
        if case .offer(let offer) = self { return offer.peerDeviceID != nil }
        return false
    }
}

/// Fetches activities from apps and delivers them to the app that continues them.
///
/// A continuation goes: pick the claiming app (same team id as the origin; see
/// ``claimant(for:)``); if it runs, `BeginContinuation` (its willContinue runs at once)
/// beside the fetch of the payload; if it must be started, fetch the payload first, and
/// start the app and wait for it to register only once the payload is known to be good, then
/// `BeginContinuation`; then `CompleteContinuation`, and finally `WasContinued` to a local
/// origin. Once `BeginContinuation` has reached the app, any failure is sent to it with
/// `FailContinuation`, so each willContinue gets exactly one outcome; each step has a
/// timeout (``Timeouts``).
@MainActor
final class ContinuationBroker {
    private let connection: BusConnection
    private let registry: AppRegistry
    let timeouts: Timeouts
    let logger: Logger
    /// Fetches paired devices' payloads and tells them of continuations: the owner of the
    /// broker, which owns the network too.
    weak var delegate: (any ContinuationBrokerDelegate)?
    /// Where the files that paired devices' continuations opened in place are remembered, so
    /// that none is sent back to the device that named it (``ContinuedDocuments``).
    var continuedDocuments: ContinuedDocuments?
    /// The continuations whose activity is with their app now (`CompleteContinuation` sent,
    /// not answered), by token: only these open continuation streams.
    var liveContinuations: [String: LiveContinuation] = [:]
    /// The installed apps whose verified domain claims cover a page (``DomainVerifier``), best
    /// first: where web pages (``UserActivity/browsingWebType``) continue.
    var domainClaimants: (URL) -> [InstalledApp] = { _ in [] }

    init(connection: BusConnection, registry: AppRegistry, timeouts: Timeouts, logger: Logger) {
        self.connection = connection
        self.registry = registry
        self.timeouts = timeouts
        self.logger = logger
    }

    /// Continues the activity on this device; returns once the app reported the restore.
    ///
    /// When the claiming app must be started, the payload is fetched and checked first: one
    /// that cannot be continued (too large, of another type, expiring at no finite time)
    /// fails the call before anything is started.
    ///
    /// - Throws: ``ServiceError``: no claimant, or the `UserActivityError` that ended it.
    /// `activationToken`, when the person asked from a notification whose server gave one
    /// (`ActivationToken`), lets the app's window come to the front (Wayland's XDG
    /// activation, X11's startup notification): an app started now finds it in its
    /// environment, a running one gets it with `SetPlatformData` before the activity.
    func continueActivity(_ source: ActivitySource, activationToken: String? = nil) async throws {
        let type = source.activityType
        if type == RecentDocuments.activityType {
            return try await continueRecentDocument(source, activationToken: activationToken)
        }
        let started = MonotonicClock.now
        let target: RegisteredApp
        let prefetched: Prefetched?
        do {
            (target, prefetched) = try await claim(source, activationToken: activationToken)
        } catch ServiceError.noClaimant(let type, let team) {
            guard let url = source.webpageURL else { throw ServiceError.noClaimant(activityType: type, teamID: team) }
            logger.info("no app continues \(type); opening its web page in the browser")
            try InstalledApps.openInBrowser(url)
            return
        }
        let claimed = MonotonicClock.now
        let token = ListingID.make()
        logger.info("continuing \(type) in \(target.appID) (\(target.busName), \(target.isVerified(for: type) ? "verified" : "unverified") for it)")
        // The app hears BeginContinuation (its willContinue runs) while the payload is on its
        // way: the two round trips overlap. CompleteContinuation goes only once both are done,
        // on the same connection, so the app always sees Begin first. A started app gets the
        // payload fetched before its start.
        let begun = Task { @MainActor in
            _ = try await callApp(target.busName, "BeginContinuation", [.string(token), .string(type)], timeout: timeouts.call)
            if let activationToken, prefetched == nil {
                await sendPlatformData(["activation-token": .string(activationToken)], to: target, token: token)
            }
            return MonotonicClock.now
        }
        let fetched = Task { @MainActor in
            if let prefetched { return (prefetched.payload, prefetched.finished) }
            return (try await fetchPayload(source), MonotonicClock.now)
        }
        let begunAt: Double
        do {
            begunAt = try await begun.value
        } catch {
            // The fetch may still be on its way; its payload is dropped when it comes.
            fetched.cancel()
            let failure = describe(error, app: target.appID, step: "start the continuation")
            _ = try? await callApp(target.busName, "FailContinuation", [.string(token), .dictionary(failure.record)],
                                   timeout: timeouts.call)
            throw ServiceError.activity(failure)
        }
        let fetchedAt: Double
        // A copy of the activity's document made for this continuation, removed if it fails.
        var copyMade: URL?
        do {
            let payload: FetchedPayload
            // A continuation cancelled (Cancel in its progress notification) stops the fetch.
            (payload, fetchedAt) = try await withTaskCancellationHandler { try await fetched.value } onCancel: { fetched.cancel() }
            if type == UserActivity.browsingWebType, prefetched == nil {
                try Self.checkSamePage(payload.bytes, as: source.webpageURL)
            }
            let placed = try await placeDocument(of: payload, source: source) { [self] message, fraction in
                do {
                    _ = try await callApp(target.busName, "ReportProgress", [.string(token), .string(message), .double(fraction ?? -1)],
                                          timeout: timeouts.call)
                    return true
                } catch {
                    logger.info("\(target.appID) gave up the continuation of \(type) while its document was on its way: \(error)")
                    return false
                }
            }
            copyMade = placed.copy
            let bytes = placed.bytes
            let streams = (try? UserActivityPayload.header(ofEncoded: bytes).supportsContinuationStreams) ?? false
            liveContinuations[token] = LiveContinuation(target: target, source: source, supportsStreams: streams)
            defer { liveContinuations[token] = nil }
            _ = try await callApp(target.busName, "CompleteContinuation", [.string(token), .bytes(bytes)],
                                  timeout: timeouts.restore)
        } catch {
            if let copyMade { try? FileManager.default.removeItem(at: copyMade) }
            let failure = failure(from: error, app: target.appID)
            logger.info("continuation of \(type) failed: \(failure)")
            _ = try? await callApp(target.busName, "FailContinuation", [.string(token), .dictionary(failure.record)],
                                   timeout: timeouts.call)
            // Kept as it is where its sentence is shown as it is (a notification's failure).
            throw (error as? WithheldDocumentFailure) ?? ServiceError.activity(failure)
        }
        let restored = MonotonicClock.now
        logger.info("\(target.appID) restored \(type)")
        // Where the app was started, the fetch came before the claim (which it is part of).
        let fetchTime = prefetched.map { $0.finished - $0.started } ?? fetchedAt - claimed
        logger.debug("continuation timing (ms): claim \(Self.milliseconds(claimed - started)), BeginContinuation \(Self.milliseconds(begunAt - claimed)) \(prefetched == nil ? "beside" : "after") fetch \(Self.milliseconds(fetchTime)), CompleteContinuation \(Self.milliseconds(restored - max(begunAt, fetchedAt))), total \(Self.milliseconds(restored - started))")
        switch source {
        case .local(let origin, let published):
            Task { @MainActor in await tellContinued(origin, published) }
        case .offer(let offer):
            if let deviceID = offer.peerDeviceID { delegate?.continued(offer, from: deviceID) }
        case .payload:
            break
        }
    }

    /// A payload fetched before the app to continue it was started, and when its fetch began
    /// and ended.
    private struct Prefetched {
        let payload: FetchedPayload
        let started: Double
        let finished: Double
    }

    /// The app that continues the activity (``claimant(for:)``): a running one, or an installed
    /// one started now. Before one is started, the payload is fetched and checked (``fetch(_:)``),
    /// and nothing is started when that fails: the failure is thrown as
    /// ``ServiceError/activity(_:)``.
    private func claim(_ source: ActivitySource,
                       activationToken: String?) async throws -> (app: RegisteredApp, prefetched: Prefetched?) {
        switch try await claimant(for: source) {
        case .running(let app):
            return (app, nil)
        case .installed(let app):
            let started = MonotonicClock.now
            let payload: FetchedPayload
            do {
                payload = try await fetchPayload(source)
                if source.activityType == UserActivity.browsingWebType {
                    try Self.checkSamePage(payload.bytes, as: source.webpageURL)
                }
            } catch {
                let failure = ServiceError.userActivityError(from: error)
                logger.info("continuation of \(source.activityType) failed before \(app.appID) was started: \(failure)")
                throw ServiceError.activity(failure)
            }
            let prefetched = Prefetched(payload: payload, started: started, finished: MonotonicClock.now)
            let target = try await launch(app, toContinue: source.activityType, teamID: source.teamID,
                                          remote: source.comesFromAnotherDevice, activationToken: activationToken)
            return (target, prefetched)
        }
    }

    /// Checks that a web page's payload is a page, and of the site its app was chosen for: the
    /// app was chosen by the listed page's domain, so a payload naming another site's page, or
    /// carrying `userInfo` the app would read, must not reach it. Run before an app is started.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` with `handoffFailed` when the page differs or
    ///   carries `userInfo`.
    static func checkSamePage(_ bytes: [UInt8], as listed: URL?) throws {
        let payload = try decode(bytes)
        guard payload.userInfo.isEmpty else {
            throw ServiceError.activity(.handoffFailed("a web page activity carries no userInfo, and this one does"))
        }
        let sent = payload.webpageURL
        guard let sent, let listed, sent.host?.lowercased() == listed.host?.lowercased(), sent.scheme == listed.scheme else {
            throw ServiceError.activity(.handoffFailed("the page sent (\(sent?.host ?? "none")) is not on the site listed (\(listed?.host ?? "none"))"))
        }
    }

    /// Seconds as milliseconds for the timing lines, to the microsecond.
    private static func milliseconds(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }

    /// Tells the app whose activity was continued elsewhere (`userActivityWasContinued`), on
    /// the device named `device` when another device continued it (`WasContinuedOn`; an app
    /// that does not know that method is told with `WasContinued`).
    func tellContinued(_ app: RegisteredApp, _ published: PublishedActivity, on device: String? = nil) async {
        let id = BusValue.string(published.appActivityID)
        if let device {
            do {
                _ = try await callApp(app.busName, "WasContinuedOn", [id, .dictionary(["device": .string(device)])],
                                      timeout: timeouts.call)
                return
            } catch let error as BusError where error.remoteName == "org.freedesktop.DBus.Error.UnknownMethod" {
                logger.debug("\(app.appID) does not take WasContinuedOn; telling it with WasContinued")
            } catch {
                return
            }
        }
        _ = try? await callApp(app.busName, "WasContinued", [id], timeout: timeouts.call)
    }

    /// Whether an app here that may receive another device's activity continues `type` for
    /// `teamID`: a running app verified for the type, or an installed one.
    /// The icon of the installed app that would continue an activity of `type` from team
    /// `teamID` (its desktop entry's `Icon=`: a theme icon name, or a file as a `file://`
    /// URI), if one is installed and names one.
    func claimantIcon(for type: String, teamID: String?, webpageURL: URL? = nil) -> String? {
        if type == UserActivity.browsingWebType {
            return webpageURL.flatMap { domainClaimants($0).first?.icon }
        }
        let running = registry.claimants(of: type, teamID: teamID, excluding: nil).verified.map(\.appID)
        let installed = InstalledApps.all().filter { $0.continues(type, forTeam: teamID) }
        let app = installed.first { running.contains($0.appID) } ?? installed.first
        return app?.icon
    }

    func hasClaimant(for type: String, teamID: String?, webpageURL: URL? = nil) -> Bool {
        // batond opens another device's recent document itself, in the same app or by its type.
        if type == RecentDocuments.activityType { return true }
        if type == UserActivity.browsingWebType {
            return webpageURL.map { !domainClaimants($0).isEmpty } ?? false
        }
        return !registry.claimants(of: type, teamID: teamID, excluding: nil).verified.isEmpty
            || InstalledApps.all().contains { $0.continues(type, forTeam: teamID) }
    }

    /// The encoded activity: saved now by its app, or the payload batond holds.
    func fetch(_ source: ActivitySource) async throws -> [UInt8] {
        try await fetchPayload(source).bytes
    }

    /// The encoded activity, with the document it names as a paired device described it.
    func fetchPayload(_ source: ActivitySource) async throws -> FetchedPayload {
        switch source {
        case .local(let app, let published):
            return FetchedPayload(bytes: try await save(app, activityID: published.appActivityID, type: published.summary.activityType))
        case .offer(let offer):
            switch offer.origin {
            case .held(let bytes):
                return FetchedPayload(bytes: bytes)
            case .peer(let deviceID):
                guard let delegate else {
                    throw ServiceError.activity(.connectionUnavailable("batond is stopping"))
                }
                let fetched = try await delegate.payload(of: offer, from: deviceID)
                let sentType = try Self.activityType(of: fetched.bytes)
                guard sentType == offer.summary.activityType else {
                    throw ServiceError.activity(.handoffFailed(
                        "\(offer.device) sent an activity of type \(sentType), not \(offer.summary.activityType)"))
                }
                return fetched
            }
        case .payload(let bytes, _, _):
            return FetchedPayload(bytes: bytes)
        }
    }

    /// Asks `app` to save the activity now and checks what comes back.
    func save(_ app: RegisteredApp, activityID: String, type: String) async throws -> [UInt8] {
        let reply: [BusValue]
        let started = MonotonicClock.now
        do {
            reply = try await callApp(app.busName, "Save", [.string(activityID)], timeout: timeouts.save)
            logger.debug("save timing (ms): Save \(Self.milliseconds(MonotonicClock.now - started))")
        } catch {
            throw ServiceError.activity(describe(error, app: app.appID, step: "save the activity"))
        }
        guard let bytes = reply.first?.bytes else {
            throw ServiceError.activity(.handoffFailed("\(app.appID) answered Save without a payload"))
        }
        let savedType = try Self.activityType(of: bytes)
        guard savedType == type else {
            throw ServiceError.activity(.handoffFailed("\(app.appID) saved an activity of type \(savedType), not \(type)"))
        }
        return bytes
    }

    /// The type of an encoded activity from outside, read from its header: the app that
    /// continues it decodes the rest, once.
    ///
    /// - Throws: as ``decode(_:)``, for the header.
    static func activityType(of bytes: [UInt8]) throws -> String {
        try checked(bytes, reading: UserActivityPayload.header(ofEncoded:), expiration: { $0.expirationDate }).activityType
    }

    /// Decodes a payload from outside, enforcing the size limit first.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` with `userInfoTooLarge` (4611) over
    ///   ``ActivityLimits/maximumEncodedSize``, `invalidActivity` for a non-finite
    ///   expiration, or the decoder's error for anything that is not an encoded activity.
    static func decode(_ bytes: [UInt8]) throws -> UserActivityPayload {
        try checked(bytes, reading: { try UserActivityPayload(decoding: $0) }, expiration: { $0.expirationDate })
    }

    /// What `read` makes of `bytes` from outside, once they are within the size limit, its
    /// errors as ``ServiceError/activity(_:)``, and refused when its expiration is not a
    /// finite time.
    private static func checked<Read>(_ bytes: [UInt8], reading read: ([UInt8]) throws -> Read,
                                      expiration: (Read) -> Date?) throws -> Read {
        guard bytes.count <= ActivityLimits.maximumEncodedSize else {
            throw ServiceError.activity(.userInfoTooLarge(size: bytes.count, limit: ActivityLimits.maximumEncodedSize))
        }
        let value: Read
        do {
            value = try read(bytes)
        } catch {
            throw ServiceError.activity(ServiceError.userActivityError(from: error))
        }
        if let date = expiration(value), !ActivityLimits.isValidExpirationDate(date) {
            throw ServiceError.activity(.invalidActivity("the expiration date is not a finite time"))
        }
        return value
    }

    /// The app that will continue an activity: one running, or one installed, to be started.
    private enum Claimant {
        case running(RegisteredApp)
        case installed(InstalledApp)
    }

    /// The app that will continue the activity, in this order:
    ///
    /// 1. the preferred running app verified for its type (``AppRegistry/claimants(of:teamID:excluding:originAppID:)``:
    ///    of the origin's app id, then the most recently active, then the first registered);
    /// 2. an installed one, to be started (``launch(_:toContinue:teamID:remote:)``) and
    ///    taken once it registered: verified for the type, or (for this user's own activity)
    ///    the process batond started, whatever its verification;
    /// 3. for this user's own activity only, the preferred running unverified claimant.
    ///
    /// So an app that cannot prove it is the claimant never goes before one that can, running
    /// or installed, and never receives another device's activity. A running unique app's own
    /// activity never starts that app again (the start would reach the running one): with no
    /// other claimant it fails at once. An app that runs as several instances (no process owns
    /// its id on the bus, as MailComposer's `--standalone`) may be started again.
    private func claimant(for source: ActivitySource) async throws -> Claimant {
        let type = source.activityType
        if type == UserActivity.browsingWebType { return try webClaimant(for: source) }
        let teamID = source.teamID
        let remote = source.comesFromAnotherDevice
        let running = registry.claimants(of: type, teamID: teamID, excluding: source.originBusName,
                                         originAppID: source.originAppID)
        if let app = running.verified.first { return .running(app) }
        var installed = InstalledApps.all().filter { $0.continues(type, forTeam: teamID) }
        if case .local(let origin, _) = source, registry.apps[origin.busName] != nil, await isUnique(origin.appID) {
            // Starting the running origin's app again gives no second claimant: a unique
            // GApplication's second process hands its launch to the running one and exits.
            let ownEntry = installed.contains { $0.appID == origin.appID }
            installed.removeAll { $0.appID == origin.appID }
            if ownEntry, installed.isEmpty, running.unverified.isEmpty {
                throw ServiceError.activity(.handoffFailed(
                    "\(origin.appID) (pid \(origin.pid)) published this \(type) activity, and no other app here continues it: "
                        + "an app does not continue its own activity, and starting \(origin.appID) again would only reach the running one"))
            }
        }
        if let app = installed.first(where: { $0.appID == source.originAppID }) ?? installed.first {
            return .installed(app)
        }
        if !running.unverified.isEmpty {
            let names = running.unverified.map { "\($0.appID) (\($0.verification))" }.joined(separator: ", ")
            guard !remote else {
                logger.notice("passing over unverified claimants of \(type): \(names): another device's activity goes only to apps verified for it")
                throw ServiceError.noClaimant(activityType: type, teamID: teamID)
            }
            logger.info("no verified or installed app continues \(type); this user's own activity goes to an unverified claimant: \(names)")
            return .running(running.unverified[0])
        }
        throw ServiceError.noClaimant(activityType: type, teamID: teamID)
    }

    /// Whether a process owns `appID` on the bus, as a unique GApplication does: starting the
    /// app again then only hands the start to it.
    private func isUnique(_ appID: String) async -> Bool {
        let reply = try? await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", method: "NameHasOwner",
                                               arguments: [.string(appID)], timeout: 5)
        return reply?.first?.bool ?? false
    }

    /// The app that continues a web page: one whose claim of the page's domain its site
    /// confirms (``domainClaimants``), running (and proved to be that app) or installed. The
    /// browser that published the page, or any app that merely claims the type, never does.
    /// With none, ``ServiceError/noClaimant(activityType:teamID:)`` sends the page to the
    /// default browser.
    private func webClaimant(for source: ActivitySource) throws -> Claimant {
        guard let url = source.webpageURL else {
            throw ServiceError.activity(.invalidActivity("a web page activity without a web page URL"))
        }
        let apps = domainClaimants(url)
        for app in apps {
            let running = registry.apps.values.filter { $0.appID == app.appID && $0.isVerified && $0.busName != source.originBusName }
            if let chosen = running.max(by: { ($0.lastActiveAt ?? .distantPast, $1.registrationNumber) < ($1.lastActiveAt ?? .distantPast, $0.registrationNumber) }) {
                return .running(chosen)
            }
        }
        if let app = apps.first { return .installed(app) }
        logger.info("no app has a verified claim on \(url.host ?? "the page's host")")
        throw ServiceError.noClaimant(activityType: source.activityType, teamID: nil)
    }

    /// Starts `installed` and waits for it to register: a verified app of its id, or the
    /// process started (or one it started); another process registering under its id
    /// meanwhile does not count. The app must then claim `type`, and be verified for it unless
    /// the activity is this user's own.
    private func launch(_ installed: InstalledApp, toContinue type: String, teamID: String?,
                        remote: Bool, activationToken: String?) async throws -> RegisteredApp {
        if let problem = installed.fileNameProblem {
            logger.warning("not starting \(installed.desktopFile) to continue \(type): \(problem)")
            throw ServiceError.activity(.handoffFailed("\(installed.desktopFile) cannot be started to continue \(type): \(problem)"))
        }
        logger.info("starting \(installed.appID) to continue \(type)")
        let started = try await AppLauncher(connection: connection, logger: logger)
            .launch(installed, toContinue: type, activationToken: activationToken)
        let appID = installed.appID
        // Reaped only once no registration is matched against its pid any more.
        defer { if let started { AppLauncher.reap(started, appID: appID, logger: logger) } }
        func isStarted(_ app: RegisteredApp) -> Bool {
            started.map { InstalledApps.process(app.pid, isOrDescendsFrom: $0) } ?? false
        }
        // The very process started registering under another id fails the launch at once: its
        // entry's file name is not its app id, and no registration of that id will come. A
        // helper it starts may register under an id of its own while the app comes up.
        let registered = await registry.waitForRegistration(timeout: timeouts.launch) { app in
            app.appID == appID ? app.isVerified || isStarted(app) : started == app.pid
        }
        if let registered, registered.appID != appID {
            let problem = InstalledApps.fileNameRule(appID, registeredAs: registered.appID)
            logger.warning("\(installed.desktopFile) started process \(registered.pid), which registered as \(registered.appID): \(problem)")
            throw ServiceError.activity(.handoffFailed(
                "the app \(installed.desktopFile) starts registered as \(registered.appID): \(problem)"))
        }
        guard let app = registered else {
            let others = registry.apps.values.filter { $0.appID == appID }.map(\.verification)
            throw ServiceError.activity(.remoteApplicationTimedOut(
                "\(appID) did not register within \(Self.seconds(timeouts.launch)) of its launch"
                    + (others.isEmpty ? "" : " (other processes registered as \(appID): \(others.joined(separator: "; ")))")))
        }
        if type == UserActivity.browsingWebType {
            // Chosen for its verified domain claim: it need only be the app of its id.
            guard app.isVerified else {
                throw ServiceError.activity(.handoffFailed("\(appID) is not verified (\(app.verification)): web pages go only to the app their site names"))
            }
            return app
        }
        guard app.continues(type, forTeam: teamID) else {
            throw ServiceError.noClaimant(activityType: type, teamID: teamID)
        }
        if !app.isVerified(for: type) {
            guard !remote else {
                logger.notice("\(appID) started to continue \(type) but is not verified for it: \(app.verification)")
                throw ServiceError.activity(.handoffFailed(
                    "\(appID) is not verified for \(type) (\(app.verification)): another device's activity goes only to apps verified for it"))
            }
            logger.notice("\(appID), started to continue \(type), is not verified for it (\(app.verification)); this user's own activity goes to it")
        }
        return app
    }

    /// Sends platform data for continuation `token` before its activity; an app built before
    /// `SetPlatformData` existed answers `UnknownMethod`, which changes nothing.
    private func sendPlatformData(_ data: [String: BusValue], to app: RegisteredApp, token: String) async {
        do {
            _ = try await callApp(app.busName, "SetPlatformData", [.string(token), .dictionary(data)], timeout: timeouts.call)
        } catch {
            logger.debug("\(app.appID) took no platform data: \(error)")
        }
    }

    func callApp(_ busName: String, _ method: String, _ arguments: [BusValue],
                         timeout: Double) async throws -> [BusValue] {
        try await connection.call(busName, path: BatonService.applicationPath,
                                  interface: BatonService.applicationInterface, method: method,
                                  arguments: arguments, timeout: timeout)
    }

    /// The failure to report for an error in the fetch-and-deliver part.
    private func failure(from error: any Error, app: String) -> UserActivityError {
        if case .timedOut = error as? BusError {
            return .remoteApplicationTimedOut("\(app) did not restore the activity within \(Self.seconds(timeouts.restore))")
        }
        return ServiceError.userActivityError(from: error)
    }

    /// A call's failure, said in terms of what the app was asked to do.
    private func describe(_ error: any Error, app: String, step: String) -> UserActivityError {
        switch ServiceError.userActivityError(from: error) {
        case .remoteApplicationTimedOut:
            return .remoteApplicationTimedOut("\(app) did not \(step) in time")
        case .connectionUnavailable:
            return .connectionUnavailable("\(app) quit before it could \(step)")
        case let other:
            return other
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
