import BatonBus
import BatonGLib
import CGLib
import Foundation
import Logging

/// Starts installed apps so that they do not live and die with batond. The route, in order:
///
/// 1. ``Route/dbusActivation`` for a `DBusActivatable=true` entry: the bus (or the systemd
///    user manager behind it) starts the app, never batond. batond activates the app's
///    ``BatonService/continueActionName`` action (`org.freedesktop.Application.ActivateAction`,
///    with the activation token as platform data), so the app knows it was started to
///    continue and shows no default window; an app that refuses that call is activated
///    (`Activate`) instead.
/// 2. ``Route/transientScope`` when a systemd user manager is on the session bus: the app is
///    spawned detached, then moved into a transient scope of its own (``SystemdScope``), out
///    of `batond.service`'s control group. If the manager refuses, the app keeps running
///    where it is, detached, and a warning says so.
/// 3. ``Route/detached`` otherwise: spawned in a session and process group of its own.
///
/// Each spawned app is batond's child until ``reap(_:appID:logger:)``, so its pid stays its
/// own while batond checks who registers.
@MainActor
struct AppLauncher {
    /// How an app was started.
    enum Route: String {
        case dbusActivation = "D-Bus activation"
        case transientScope = "a transient systemd scope"
        case detached = "a detached process"
    }

    let connection: BusConnection
    let logger: Logger

    /// Starts `app` to continue an activity of `activityType` (``InstalledApps/launch(_:toContinue:)``
    /// does the starting), saying on which route.
    ///
    /// - Returns: the process started, or `nil` when the bus starts it.
    /// - Throws: ``ServiceError/activity(_:)`` with `handoffFailed` when it cannot start.
    func launch(_ app: InstalledApp, toContinue activityType: String,
                activationToken: String? = nil) async throws -> Int32? {
        let route = await route(for: app)
        logger.info("starting \(app.appID) through \(route.rawValue)")
        if route == .dbusActivation {
            activate(app, toContinue: activityType, activationToken: activationToken)
            return nil
        }
        // Nothing may suspend between the start and the return: the caller waits for the
        // app's registration from its next line on.
        guard let pid = try InstalledApps.launch(app, toContinue: activityType, activationToken: activationToken) else {
            logger.info("\(app.appID) was started by D-Bus activation after all (GIO's choice for its entry)")
            return nil
        }
        switch route {
        case .dbusActivation, .detached:
            logger.info("started \(app.appID) as process \(pid) in its own session (no systemd user manager on the bus)")
        case .transientScope:
            let unit = SystemdScope.unitName(appID: app.appID)
            logger.info("started \(app.appID) as process \(pid) in its own session; moving it into \(unit)")
            Task { @MainActor in await moveIntoScope(pid, unit: unit, appID: app.appID) }
        }
        return pid
    }

    /// Asks the bus to start `app` (if it is not running) and activates its
    /// ``BatonService/continueActionName`` action with `activityType`; if the app refuses
    /// the call, activates it through GIO (`Activate`) instead. Returns at once: the caller
    /// waits for the app's registration, which the bus's start leads to.
    private func activate(_ app: InstalledApp, toContinue activityType: String, activationToken: String?) {
        var platformData: [String: BusValue] = [:]
        var parameter: [String: BusValue] = [BatonService.continueActivityTypeKey: .string(activityType)]
        if let activationToken {
            platformData["activation-token"] = .string(activationToken)
            platformData["desktop-startup-id"] = .string(activationToken)
            parameter[BatonService.continueActivationTokenKey] = .string(activationToken)
        }
        let arguments: [BusValue] = [.string(BatonService.continueActionName),
                                     .array(elementType: "v", [.variant(.dictionary(parameter))]),
                                     .dictionary(platformData)]
        let connection = connection, logger = logger
        Task { @MainActor in
            do {
                _ = try await connection.call(app.appID, path: Self.applicationObjectPath(app.appID),
                                              interface: "org.freedesktop.Application", method: "ActivateAction",
                                              arguments: arguments, autoStart: true)
                logger.info("activated \(app.appID) to continue \(activityType)")
            } catch {
                logger.notice("\(app.appID) did not take \(BatonService.continueActionName) (\(error)); activating it instead")
                do {
                    if let pid = try InstalledApps.launch(app, toContinue: activityType, activationToken: activationToken) {
                        Self.reap(pid, appID: app.appID, logger: logger)
                    }
                } catch {
                    logger.error("could not start \(app.appID): \(error)")
                }
            }
        }
    }

    /// The object path of a GApplication with id `appID`, as `org.freedesktop.Application`
    /// defines it: `/` and the id with `.` as `/` and `-` as `_`.
    static func applicationObjectPath(_ appID: String) -> String {
        "/" + appID.replacingOccurrences(of: ".", with: "/").replacingOccurrences(of: "-", with: "_")
    }

    /// The route for `app`: D-Bus activation for a `DBusActivatable` entry whose id is a bus
    /// name, else a transient scope when a systemd user manager is on the bus, else a
    /// detached process.
    func route(for app: InstalledApp) async -> Route {
        // GIO, like the bus, activates only an id that is a bus name.
        if app.isDBusActivatable && g_dbus_is_name(app.appID) != 0 { return .dbusActivation }
        return await SystemdScope.managerIsPresent(on: connection) ? .transientScope : .detached
    }

    /// Asks the systemd user manager to put `pid` into `unit`; a refusal is logged, and the
    /// app runs on where it is.
    private func moveIntoScope(_ pid: Int32, unit: String, appID: String) async {
        do {
            let job = try await SystemdScope.start(unit, pid: pid, description: "\(appID), started by batond",
                                                   on: connection)
            logger.info("moved \(appID) (process \(pid)) into \(unit) (job \(job))")
        } catch {
            logger.warning("could not move \(appID) (process \(pid)) into a transient scope: \(error); it runs on, detached, where batond runs")
        }
    }

    /// Reaps `pid`, a process ``launch(_:toContinue:)`` started, once it exits (at once if it
    /// has), so that no zombie stays behind; logs its exit at debug level.
    static func reap(_ pid: Int32, appID: String, logger: Logger) {
        let box = Unmanaged.passRetained(ExitReport(appID: appID, logger: logger)).toOpaque()
        g_child_watch_add_full(G_PRIORITY_DEFAULT, pid, { pid, status, data in
            g_spawn_close_pid(pid)
            guard let data else { return }
            let report = Unmanaged<ExitReport>.fromOpaque(data).takeUnretainedValue()
            report.logger.debug("\(report.appID) (process \(pid)) exited with wait status \(status)")
        }, box, { data in
            guard let data else { return }
            Unmanaged<ExitReport>.fromOpaque(data).release()
        })
    }
}

/// What the reaper says when a started app exits.
private final class ExitReport {
    let appID: String
    let logger: Logger

    init(appID: String, logger: Logger) {
        self.appID = appID
        self.logger = logger
    }
}
