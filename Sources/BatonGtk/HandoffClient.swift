import Baton
import BatonBus
import BatonGLib
import Foundation
import Logging

/// The app's link to batond, the per-user continuity service: it registers the app,
/// publishes each election's result, saves activities when asked, and turns incoming
/// continuations into `Application/beginContinuation(activityType:)`,
/// `Continuation/complete(with:)` and `Continuation/fail(with:)`.
///
/// Without a session bus or a running service the app runs normally, without Handoff: one
/// log line says so, and the client connects as soon as the service appears. The client
/// registers, publishes and answers calls to the app's `org.baton.Application1` object only
/// once the current owner of `org.baton.Daemon` proved to be batond (`ServiceOwnerCheck`),
/// so a process that took the name while batond was down never gets the app's activities.
@MainActor
public final class HandoffClient {
    /// What the app tells the service about itself.
    public let teamIdentifier: String
    /// The activity types the app continues.
    public let activityTypes: [String]

    /// How long a continuation may wait for its activity after `willContinue`, in seconds,
    /// before it fails with `remoteApplicationTimedOut` (the service normally ends it well
    /// before: see batond's timeouts).
    public var continuationTimeout: Double = 60

    /// Whether the service is there and the app registered with it.
    public private(set) var isConnected = false

    private weak var application: BatonApplication?
    let logger = Logger(label: "baton.handoff")
    private(set) var connection: BusConnection?
    private var serviceOwner: String?
    /// ``serviceOwner`` once it proved to be batond: the only caller the app answers.
    private(set) var trustedOwner: String?
    /// batond's `org.baton.Daemon1` at ``trustedOwner``, once the owner proved to be batond.
    var daemon: DaemonClient? {
        guard let connection, let trustedOwner else { return nil }
        return DaemonClient(connection: connection, destination: trustedOwner)
    }
    private var observation: ActivityObservation?
    let activityIDs = ActivityIDs()
    private var pending: [String: PendingContinuation] = [:]
    private var lastPublished: (id: String, summary: ActivitySummary)?
    /// Whether the app has the active window, as last told to the service (`SetActive`).
    private var reportedActive: Bool?
    /// Counts the publishing calls sent, so a failure can tell whether a later one followed.
    private(set) var publications = 0
    /// Whether a publication is scheduled for the center's next turn.
    private var publicationScheduled = false
    private var hasLoggedAbsence = false
    /// Whether publishing waits for a continuation to restore, so that a window made for a
    /// continued activity is offered once, restored, rather than first with its placeholder.
    private var holdsPublication = false
    /// Releases ``holdsPublication`` if the delegate never calls its restoration handler.
    private var holdTimer: UInt32 = 0

    init(application: BatonApplication, teamIdentifier: String, activityTypes: [String]) {
        self.application = application
        self.teamIdentifier = teamIdentifier
        self.activityTypes = activityTypes
    }

    /// Connects to the session bus and starts watching for the service: at GApplication
    /// `startup`, so only in the app's primary instance.
    func start() {
        guard connection == nil, let application else { return }
        do {
            connection = try BusConnection.session()
        } catch {
            logger.notice("Handoff is off: no D-Bus session bus (\(error))")
            return
        }
        guard let connection else { return }
        do {
            try connection.export(path: BatonService.applicationPath, interface: BatonService.applicationInterface,
                                  introspectionXML: BatonService.applicationIntrospectionXML) { [weak self] call in
                self?.handle(call)
            }
        } catch {
            logger.error("Handoff is off: cannot export \(BatonService.applicationPath): \(error)")
            return
        }
        observation = application.center.addObserver { [weak self] event in self?.observe(event) }
        connection.watchName(BatonService.busName, autoStart: true, appeared: { [weak self] owner in
            self?.serviceAppeared(owner)
        }, vanished: { [weak self] in
            self?.serviceVanished()
        })
    }

    // MARK: The service coming and going

    private func serviceAppeared(_ owner: String) {
        guard let connection, let application else { return }
        serviceOwner = owner
        trustedOwner = nil
        lastPublished = nil
        reportedActive = nil
        Task { @MainActor in
            switch await DaemonClient(connection: connection, destination: owner).register(
                appID: application.applicationID, teamID: teamIdentifier, activityTypes: activityTypes,
                isStillWanted: { self.serviceOwner == owner }, verified: { self.trustedOwner = owner }) {
            case .registered:
                isConnected = true
                hasLoggedAbsence = false
                logger.info("Handoff is on: registered with the Baton service")
                reportActivation()
                publishCurrent()
            case .notTheService(let error):
                logger.warning("Handoff is off: \(BatonService.busName) is owned by \(owner), which is not the Baton service: \(error)")
            case .refused(let error):
                logger.warning("Handoff is off: the Baton service refused the registration: \(error)")
            case .superseded:
                break
            }
        }
    }

    private func serviceVanished() {
        let wasConnected = isConnected
        serviceOwner = nil
        trustedOwner = nil
        isConnected = false
        lastPublished = nil
        if wasConnected {
            logger.notice("the Baton service stopped; Handoff resumes when it returns")
        } else if !hasLoggedAbsence {
            hasLoggedAbsence = true
            logger.notice("the Baton service is not running; Handoff starts when it does")
        }
        let stranded = pending
        pending = [:]
        for entry in stranded.values {
            entry.finish(failing: .connectionUnavailable("the Baton service stopped during the continuation"))
        }
    }

    // MARK: Publishing the current activity

    private func observe(_ event: ActivityEvent) {
        switch event {
        case .becameCurrent, .resigned, .summaryChanged, .invalidated:
            schedulePublication()
        case .willContinue:
            holdPublication(for: continuationTimeout)
        case .continued:
            holdPublication(for: PendingContinuation.restorationWait)
        case .restored:
            releasePublication(savingCurrent: true)
        case .failed:
            releasePublication()
        default:
            break
        }
    }

    private func holdPublication(for seconds: Double) {
        holdsPublication = true
        GLibSources.cancel(holdTimer)
        holdTimer = GLibSources.once(after: seconds) { [weak self] in
            self?.holdTimer = 0
            self?.releasePublication()
        }
    }

    /// Ends the hold and publishes in the next turn; after a restore, the current activity
    /// is saved first if the restore marked it (its update pass would come after the
    /// publication), so that what is offered is the restored state.
    private func releasePublication(savingCurrent: Bool = false) {
        GLibSources.cancel(holdTimer)
        holdTimer = 0
        guard holdsPublication else { return }
        holdsPublication = false
        if savingCurrent, let center = application?.center, let current = center.currentActivity {
            center.saveNow(current)
        }
        schedulePublication()
    }

    /// Publishes in the main loop's next turn, once however many changes came before it, as
    /// update passes batch `needsSave` marks: typing in a field that makes the title costs
    /// at most one call per turn, not one per change. (A GLib source of its own, not the
    /// center's scheduler, which an app may hold back to save only when asked.)
    private func schedulePublication() {
        guard !publicationScheduled, !holdsPublication else { return }
        publicationScheduled = true
        GLibSources.once(after: 0) { [weak self] in
            guard let self else { return }
            self.publicationScheduled = false
            self.publishCurrent()
        }
    }

    /// Tells the service whether one of the app's windows is the active one (`SetActive`),
    /// when that changed since it was last told. An older service, which does not know the
    /// method, answers with an error, logged at debug level: it goes on offering the activity
    /// published last.
    func reportActivation() {
        guard isConnected, let daemon, let application else { return }
        let active = application.hasActiveWindow
        guard active != reportedActive else { return }
        reportedActive = active
        Task { @MainActor in
            do {
                try await daemon.call(.setActive(active), timeout: 10)
            } catch {
                logger.debug("could not tell the Baton service whether the app is active: \(error)")
            }
        }
    }

    /// Tells the service the current activity, its title cleaned of characters it refuses
    /// (``ActivitySummary/cleaned``). If the service still refuses it, the app resigns, so
    /// that the service does not go on offering an earlier, stale activity.
    private func publishCurrent() {
        guard isConnected, !holdsPublication, let owner = trustedOwner, let daemon,
              let center = application?.center else { return }
        let current = center.currentActivity.flatMap { $0.isValid ? $0 : nil }
        let next = current.map { (id: activityIDs.id(for: $0), summary: ActivitySummary($0).cleaned) }
        guard next?.id != lastPublished?.id || next?.summary != lastPublished?.summary else { return }
        lastPublished = next
        publications += 1
        let publication = publications
        let call = next.map { DaemonCall.publishCurrent(id: $0.id, summary: $0.summary) } ?? .resignCurrent
        Task { @MainActor in
            do {
                try await daemon.call(call, timeout: 10)
            } catch {
                guard next != nil else {
                    return logger.debug("could not resign the current activity: \(error)")
                }
                guard publication == publications, serviceOwner == owner else {
                    return logger.debug("could not publish an activity since replaced: \(error)")
                }
                logger.warning("the Baton service refused the current activity, so it is not offered: \(error)")
                try? await daemon.call(.resignCurrent, timeout: 10)
            }
        }
    }

    // MARK: Calls from the service

    private func handle(_ call: BusMethodCall) {
        guard let trustedOwner, call.sender == trustedOwner else {
            call.fail(with: ServiceError.accessDenied("only the Baton service may call this object"))
            return
        }
        let token = call.arguments.at(0)?.string ?? ""
        switch call.method {
        case "Save": save(token, call)
        case "BeginContinuation": begin(token, type: call.arguments.at(1)?.string ?? "", call)
        case "SetPlatformData": setPlatformData(token, call.arguments.at(1)?.dictionary ?? [:], call)
        case "ReportProgress":
            var fraction = -1.0
            if case .double(let value)? = call.arguments.at(2) { fraction = value }
            reportProgress(token, message: call.arguments.at(1)?.string ?? "", fraction: fraction, call)
        case "CompleteContinuation": complete(token, bytes: call.arguments.at(1)?.bytes ?? [], call)
        case "FailContinuation": fail(token, record: call.arguments.at(1)?.dictionary ?? [:], call)
        case "WasContinued": wasContinued(token, on: nil, call)
        case "WasContinuedOn":
            let device = call.arguments.at(1)?.dictionary?["device"]?.string
            wasContinued(token, on: device.flatMap { UnsafeCharacters.occur(in: $0) || $0.isEmpty ? nil : $0 }, call)
        case "ReceiveContinuationStream": receiveContinuationStream(token, call)
        default: call.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.method)")
        }
    }

    private func save(_ id: String, _ call: BusMethodCall) {
        guard let activity = activityIDs.activity(for: id), activity.isValid, let center = application?.center else {
            call.fail(with: ServiceError.unknownActivity(id), sendingRecord: true)
            return
        }
        center.saveNow(activity)
        do {
            call.reply([.bytes(try activity.payload.encodedBytes())])
        } catch {
            logger.warning("the current \(activity.activityType) activity cannot be sent to the device continuing it: \(error)")
            center.reportSendFailure(activity, error: error)
            call.fail(with: error, sendingRecord: true)
        }
    }

    private func begin(_ token: String, type: String, _ call: BusMethodCall) {
        guard let application, !token.isEmpty, !type.isEmpty, pending[token] == nil else {
            call.fail(with: ServiceError.invalidArguments("a continuation needs a new token and an activity type"),
                      sendingRecord: true)
            return
        }
        let continuation = application.beginContinuation(activityType: type)
        let entry = PendingContinuation(continuation, logger: logger)
        pending[token] = entry
        waitForActivity(entry, token: token)
        entry.watchForSlowness(in: application)
        call.reply()
    }

    /// Fails the continuation unless its activity (or news of it) arrives within
    /// ``continuationTimeout``.
    private func waitForActivity(_ entry: PendingContinuation, token: String) {
        GLibSources.cancel(entry.timer)
        entry.timer = GLibSources.once(after: continuationTimeout) { [weak self] in
            entry.timer = 0
            self?.pending[token] = nil
            entry.finish(failing: .remoteApplicationTimedOut("the activity did not arrive in time"))
        }
    }

    /// The service says how a held-up continuation stands: the app shows it, and waits on.
    /// Answers `cancelled` once the app gave up on it (the person cancelled), so the service
    /// stops too.
    private func reportProgress(_ token: String, message: String, fraction: Double, _ call: BusMethodCall) {
        guard let entry = pending[token] else {
            call.fail(with: ServiceError.unknownActivity(token), sendingRecord: true)
            return
        }
        guard !entry.continuation.isFinished else {
            pending[token] = nil
            call.fail(with: UserActivityError.cancelled, sendingRecord: true)
            return
        }
        guard !message.isEmpty else {
            call.fail(with: ServiceError.invalidArguments("a progress report needs a message"), sendingRecord: true)
            return
        }
        waitForActivity(entry, token: token)
        entry.continuation.reportProgress(UnsafeCharacters.replacing(in: message.prefix(300)),
                                          fractionCompleted: fraction.isFinite && fraction >= 0 ? fraction : nil)
        call.reply()
    }

    /// Keeps the desktop's activation token for the window the continuation will present.
    private func setPlatformData(_ token: String, _ data: [String: BusValue], _ call: BusMethodCall) {
        guard pending[token] != nil, let application else {
            call.fail(with: ServiceError.unknownActivity(token), sendingRecord: true)
            return
        }
        if let activation = data["activation-token"]?.string, BatonService.isAcceptableActivationToken(activation) {
            application.activationToken = activation
        }
        call.reply()
    }

    private func complete(_ token: String, bytes: [UInt8], _ call: BusMethodCall) {
        guard let entry = pending.removeValue(forKey: token), let center = application?.center else {
            call.fail(with: ServiceError.unknownActivity(token), sendingRecord: true)
            return
        }
        let activity: UserActivity
        do {
            activity = try UserActivity(payload: UserActivityPayload(decoding: bytes), center: center)
        } catch {
            entry.finish(failing: ServiceError.userActivityError(from: error))
            call.fail(with: error, sendingRecord: true)
            return
        }
        entry.continuation.streamProvider = ServiceStreamOpener(token: token, client: self)
        entry.deliver(activity, answering: call)
    }

    private func fail(_ token: String, record: [String: BusValue], _ call: BusMethodCall) {
        guard let entry = pending.removeValue(forKey: token) else {
            call.fail(with: ServiceError.unknownActivity(token), sendingRecord: true)
            return
        }
        entry.finish(failing: UserActivityError(record: record))
        call.reply()
    }

    private func wasContinued(_ id: String, on device: String?, _ call: BusMethodCall) {
        guard let activity = activityIDs.activity(for: id), let center = application?.center else {
            call.fail(with: ServiceError.unknownActivity(id), sendingRecord: true)
            return
        }
        center.reportContinued(activity, on: device)
        call.reply()
    }
}

extension HandoffClient {
    /// Says, once, that this process is a second instance of the app, which leaves Handoff to
    /// the first.
    func noteSecondInstance() {
        guard let application else { return }
        if case .continuation(let type) = application.launchReason {
            logger.notice("\(application.applicationID) is already running in another process, which continues \(type); this process exits")
        } else {
            logger.info("\(application.applicationID) is already running in another process, which handles Handoff; this process passes its launch on")
        }
    }
}

extension BatonApplication {
    /// Connects the app to the Baton service, now and whenever the service (re)appears.
    ///
    /// The connection starts at GApplication `startup` (at once, if it ran already), so only
    /// the app's primary instance registers: a second process of a D-Bus-unique app passes its
    /// launch to the first and never talks to the service.
    ///
    /// - Parameters:
    ///   - teamIdentifier: the team id: activities go only to apps of the same team.
    ///   - activityTypes: the activity types the app continues (its `NSUserActivityTypes`).
    @discardableResult
    public func enableHandoff(teamIdentifier: String, activityTypes: [String]) -> HandoffClient {
        if let handoff { return handoff }
        let client = HandoffClient(application: self, teamIdentifier: teamIdentifier, activityTypes: activityTypes)
        if let invalid = activityTypes.first(where: { !ActivityLimits.isValidActivityType($0) }) {
            Logger(label: "baton.handoff").error(
                "Handoff is off: \(invalid.debugDescription) is not an activity type the Baton service accepts (non-empty, at most \(ActivityLimits.maximumActivityTypeLength) bytes, no control characters)")
            return client
        }
        handoff = client
        if hasStartedUp { client.start() } else if isRemote { client.noteSecondInstance() }
        return client
    }
}
