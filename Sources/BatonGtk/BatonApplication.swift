import Baton
import BatonBus
import BatonGLib
import CGLib
import CGtk
import Foundation
import Logging

/// A `GtkApplication` that is a Baton `Application`: the last responder of every chain,
/// and where incoming activities enter.
///
/// Creating one installs a ``GLibScheduler`` as the center's scheduler, so elections and
/// update passes run lazily on the GLib main loop. ``run(arguments:)`` also bridges
/// libdispatch's main queue into that loop, so `@MainActor` tasks run inside it. The
/// application's active window is the center's main window.
///
/// The app registers with the Baton service (``enableHandoff(teamIdentifier:activityTypes:)``)
/// from GApplication's `startup`, so only the primary instance of a D-Bus-unique app ever
/// does. An app the service started to continue an activity (``launchReason``) gets no
/// `activate` for that launch, so it shows no default window beside the continued one; if
/// that continuation fails while the app has no window, ``onActivate`` runs after all.
///
/// An app built on another `GtkApplication` subclass, such as libadwaita's `AdwApplication`,
/// makes it with ``init(wrapping:center:)``; BatonGtk itself never depends on libadwaita.
@MainActor
open class BatonApplication: Application {
    /// The GTK application.
    public let gtkApplication: UnsafeMutablePointer<GtkApplication>
    /// Called when the application starts (GApplication `startup`).
    public var onStartup: (@MainActor () -> Void)?
    /// Called when the application is activated (GApplication `activate`), to show a window.
    ///
    /// Not called for the launch itself when ``launchReason`` is a continuation: the
    /// continued activity brings its own window (the delegate's `continue…` makes it).
    public var onActivate: (@MainActor () -> Void)?

    /// Called with the URIs the app is asked to open (GApplication `open`: its command line,
    /// a second launch's, the desktop's), for an application made with
    /// `G_APPLICATION_HANDLES_OPEN` among its flags. Files come as `file://` URIs.
    public var onOpen: (@MainActor (_ uris: [String]) -> Void)?

    /// Why this process was started: read from its environment when the application was
    /// created, or told by the service when it started the app through D-Bus activation
    /// (`BatonService.continueActionName`) (see ``LaunchReason``).
    public private(set) var launchReason: LaunchReason

    /// The desktop activation token the next presented window carries
    /// (``ApplicationWindow/present()``), once the service delivered one with a continuation.
    /// (An app the service started finds its token in `XDG_ACTIVATION_TOKEN`, which GTK
    /// itself applies to the first window.)
    public internal(set) var activationToken: String?
    /// The activation token this process was started with (`XDG_ACTIVATION_TOKEN`), if any.
    public let launchActivationToken: String?

    /// Whether GApplication's `startup` ran: this process is the primary instance.
    public private(set) var hasStartedUp = false

    /// Whether the next `activate` is the launch's own, skipped for a continuation launch.
    private var skipsLaunchActivation: Bool
    /// Watches the continuation that started the app, to show a window if it fails.
    private var launchObservation: ActivityObservation?
    /// Whether the app holds GApplication's use count while it waits, windowless, for the
    /// continuation it was started for (without a window or a hold, `run` would return).
    private var holdsForLaunchContinuation = false

    /// State restoration, once enabled.
    public internal(set) var stateRestoration: StateRestoration?

    /// The link to the Baton service, once Handoff is enabled.
    public internal(set) var handoff: HandoffClient?

    /// Windows presented whose surface the compositor has not mapped yet.
    var windowsAwaitingMap = Set<ObjectIdentifier>()
    /// Windows presented while others were being mapped, in order.
    var deferredPresentations: [ApplicationWindow] = []

    /// Windows kept alive from creation until GTK destroys them.
    private var windows: [ApplicationWindow] = []
    /// The dialog showing a held-up continuation's progress, and its bar, while shown.
    var progressDialog: (dialog: UnsafeMutablePointer<GtkWidget>, bar: UnsafeMutablePointer<GtkWidget>)?

    /// GApplication's default flags: one process per session (D-Bus uniqueness), a second
    /// launch passes its activation to the first. The default of ``init(applicationID:flags:center:)``.
    public static let defaultFlags = G_APPLICATION_DEFAULT_FLAGS
    /// Flags for an application where every launch is its own process (no D-Bus uniqueness).
    public static let nonUniqueFlags = G_APPLICATION_NON_UNIQUE

    /// Creates the application with a reverse-DNS `applicationID`.
    public init(applicationID: String, flags: GApplicationFlags = BatonApplication.defaultFlags,
                center: ActivityCenter = .shared) {
        gtkApplication = gtk_application_new(applicationID, flags)
        launchReason = LaunchReason.takeFromEnvironment()
        launchActivationToken = ProcessInfo.processInfo.environment["XDG_ACTIVATION_TOKEN"]
        skipsLaunchActivation = launchReason.isContinuation
        super.init(center: center)
        attachToGtkApplication()
    }

    /// Makes an application the caller already created the Baton application: a
    /// `GtkApplication` or an instance of a subclass of it, such as libadwaita's
    /// `AdwApplication` (cast it with `baton_application(_:)`). Its id and flags are the ones
    /// it was created with; the application takes over the caller's reference.
    ///
    /// ```swift
    /// let app = BatonApplication(wrapping: baton_application(adw_application_new(id, BatonApplication.defaultFlags)))
    /// ```
    public init(wrapping application: UnsafeMutablePointer<GtkApplication>, center: ActivityCenter = .shared) {
        gtkApplication = application
        launchReason = LaunchReason.takeFromEnvironment()
        launchActivationToken = ProcessInfo.processInfo.environment["XDG_ACTIVATION_TOKEN"]
        skipsLaunchActivation = launchReason.isContinuation
        super.init(center: center)
        attachToGtkApplication()
    }

    /// Follows the GTK application's signals and active window, and adds the action the
    /// service activates to start the app for a continuation.
    private func attachToGtkApplication() {
        center.scheduler = GLibScheduler()
        let instance = UnsafeMutableRawPointer(gtkApplication)
        GObjectSignals.onNotify(instance, "active-window") { [weak self] in
            self?.activeWindowDidChange()
        }
        GObjectSignals.connect(instance, "startup") { [weak self] in self?.didStartUp() }
        GObjectSignals.connect(instance, "activate") { [weak self] in self?.didActivate() }
        connectOpenSignal()
        GActions.addTakingRecord(BatonService.continueActionName, to: OpaquePointer(gtkApplication)) { [weak self] record in
            self?.serviceStartedAppToContinue(record)
        }
        if launchReason.isContinuation { watchLaunchContinuation() }
    }

    /// Whether this process registered with the session and found another instance of the
    /// app running there, to which it passes its launch (a D-Bus-unique app's second process).
    public var isRemote: Bool {
        g_application_get_is_registered(baton_gapplication(gtkApplication)).isTrue
            && g_application_get_is_remote(baton_gapplication(gtkApplication)).isTrue
    }

    private func didStartUp() {
        hasStartedUp = true
        if launchObservation != nil { holdForLaunchContinuation() }
        handoff?.start()
        onStartup?()
    }

    /// The service started this app through D-Bus activation to continue an activity (it
    /// activated `BatonService.continueActionName`). Such a launch (`--gapplication-service`)
    /// gets no `activate`: the app waits, windowless, for the continuation, as one the service
    /// started from its `Exec` line does, and the first window it presents carries the
    /// activation token. Ignored once the app shows a window or already waits.
    private func serviceStartedAppToContinue(_ record: [String: BusValue]) {
        guard let activityType = record[BatonService.continueActivityTypeKey]?.string,
              ActivityLimits.isValidActivityType(activityType) else {
            Logger(label: "baton.application").warning(
                "ignored \(BatonService.continueActionName): its \(BatonService.continueActivityTypeKey) is missing or not an activity type")
            return
        }
        if let token = record[BatonService.continueActivationTokenKey]?.string,
           BatonService.isAcceptableActivationToken(token) {
            activationToken = token
        }
        guard windows.isEmpty, launchObservation == nil, !launchReason.isContinuation else { return }
        // No `skipsLaunchActivation`: a service launch has no `activate` of its own to skip,
        // and the next one is a person's.
        launchReason = .continuation(activityType: activityType)
        watchLaunchContinuation()
        if hasStartedUp { holdForLaunchContinuation() }
    }

    private func holdForLaunchContinuation() {
        guard !holdsForLaunchContinuation else { return }
        holdsForLaunchContinuation = true
        g_application_hold(baton_gapplication(gtkApplication))
    }

    private func didActivate() {
        if skipsLaunchActivation {
            skipsLaunchActivation = false
            return
        }
        onActivate?()
    }

    /// Shows the app after all (``onActivate``) when the continuation it was started for
    /// fails, or never begins, while it has no window: a person who continued something
    /// must not be left with an invisible app.
    private func watchLaunchContinuation() {
        launchObservation = center.addObserver { [weak self] event in
            switch event {
            case .failed:
                // A continuation superseded by a newer one fails too: only show the app
                // when none is left under way.
                GLibSources.once(after: 0) { [weak self] in
                    guard let self, !isContinuing else { return }
                    activateIfWindowless()
                }
            case .restored:
                self?.launchObservation = nil
                self?.releaseLaunchHold()
            default:
                break
            }
        }
        armLaunchContinuationTimer()
    }

    /// Shows the app if, after ``launchContinuationWait``, no continuation is under way and
    /// none was restored; while one is, waits again.
    private func armLaunchContinuationTimer() {
        GLibSources.once(after: Self.launchContinuationWait) { [weak self] in
            guard let self, launchObservation != nil else { return }
            if isContinuing {
                armLaunchContinuationTimer()
            } else {
                activateIfWindowless()
            }
        }
    }

    private func activateIfWindowless() {
        launchObservation = nil
        skipsLaunchActivation = false
        if windows.isEmpty { onActivate?() }
        releaseLaunchHold()
    }

    private func releaseLaunchHold() {
        guard holdsForLaunchContinuation else { return }
        holdsForLaunchContinuation = false
        g_application_release(baton_gapplication(gtkApplication))
    }

    /// How long an app started for a continuation waits for it to begin before it shows
    /// itself anyway, in seconds.
    static let launchContinuationWait: Double = 20

    /// The application's id.
    public var applicationID: String {
        g_application_get_application_id(baton_gapplication(gtkApplication)).map { String(cString: $0) } ?? ""
    }

    /// The windows of this application that GTK has not destroyed.
    public var applicationWindows: [ApplicationWindow] { windows }

    /// Registers the application with the session (and runs `startup`) without running the
    /// main loop: for tests and tools that drive the loop themselves.
    ///
    /// - Throws: ``BatonGtkError/registrationFailed(_:)`` with GLib's message.
    public func register() throws {
        var error: UnsafeMutablePointer<GError>?
        guard g_application_register(baton_gapplication(gtkApplication), nil, &error).isTrue else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            throw BatonGtkError.registrationFailed(message)
        }
    }

    /// Runs the application's main loop until it quits; returns its exit status.
    ///
    /// A second instance of a D-Bus-unique app passes its launch to the running one and
    /// exits; started by the service to continue an activity, it passes nothing (the running
    /// instance, registered with the service, is the one that continues) and logs why.
    public func run(arguments: [String] = CommandLine.arguments) -> Int32 {
        MainQueueBridge.install()
        if launchReason.isContinuation {
            do {
                try register()
            } catch {
                Logger(label: "baton.application").error("\(applicationID) cannot start: \(error)")
                return 1
            }
            if isRemote {
                handoff?.noteSecondInstance()
                return 0
            }
        }
        var cArguments = arguments.map { strdup($0) }
        defer { cArguments.forEach { free($0) } }
        return g_application_run(baton_gapplication(gtkApplication), Int32(cArguments.count), &cArguments)
    }

    /// Shows `error` in a dialog over the active window: "Could Not Continue" for a
    /// continuation's error (a failed continuation the delegate does not handle itself),
    /// "Something Went Wrong" for any other. A `PresentableError` (every
    /// `UserActivityError`) shows its sentence for people, and its detail goes to the log.
    open override func presentError(_ error: any Error) {
        let continuing = error is UserActivityError || error is DocumentReopenFailure
        showErrorDialog(heading: continuing ? Self.continuationErrorHeading : Self.errorHeading, error)
    }

    /// Brings the first restored window to the front with the continuation's activation token,
    /// when the app did not present a window with it itself: a window already open that took
    /// the continued activity comes forward as a new one does.
    open override func didRestore(_ objects: [any UserActivityRestoring]) {
        guard activationToken != nil, let window = objects.lazy.compactMap({ $0 as? ApplicationWindow }).first else { return }
        present(window)
    }

    /// Shows how a held-up continuation stands in a dialog over the active window (its
    /// message, a progress bar, and Cancel, which cancels the continuation), updated in place
    /// and taken down when the continuation ends.
    open override func presentContinuationProgress(_ progress: ContinuationProgress?) {
        showProgressDialog(progress)
    }

    /// Quits the main loop.
    public func quit() {
        g_application_quit(baton_gapplication(gtkApplication))
    }

    /// The token for the window being presented now, given once.
    func takeActivationToken() -> String? {
        defer { activationToken = nil }
        return activationToken
    }

    func windowDidOpen(_ window: ApplicationWindow) {
        windows.append(window)
        releaseLaunchHold()
    }

    func windowWasDestroyed(_ window: ApplicationWindow) {
        windows.removeAll { $0 === window }
        deferredPresentations.removeAll { $0 === window }
        windowActivationDidChange()
    }

    /// Whether one of the app's windows is the desktop's active window (GTK's `is-active`):
    /// the person is using this app.
    public var hasActiveWindow: Bool {
        windows.contains { window in window.gtkWindow.map { gtk_window_is_active($0) != 0 } ?? false }
    }

    /// Tells the service when the app becomes, or stops being, the one the person uses: the
    /// device offers the current activity of the app used last.
    func windowActivationDidChange() {
        handoff?.reportActivation()
    }

    private func activeWindowDidChange() {
        let active = gtk_application_get_active_window(gtkApplication)
        center.mainWindow = active.flatMap { ApplicationWindow.attached(to: UnsafeMutableRawPointer($0)) }
    }
}

/// Errors of the GTK layer.
public enum BatonGtkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The application could not register with the session.
    case registrationFailed(String)

    public var description: String {
        switch self {
        case .registrationFailed(let message): return "the application could not register: \(message)"
        }
    }
}
