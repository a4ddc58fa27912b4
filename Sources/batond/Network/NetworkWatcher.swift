import BatonBus
import BatonGLib
import CGLib
import Foundation
import Logging

/// Tells batond when its links may have gone stale: the machine resumed from sleep (logind's
/// `PrepareForSleep(false)` on the system bus) or the network changed (GIO's
/// `GNetworkMonitor`, which follows the kernel's routes). Both are signals: nothing here wakes
/// batond on a timer, and a burst of network changes (an interface coming up, its address,
/// its routes) is folded into one call of ``onWake`` ``foldingDelay`` after the first.
///
/// Without a system bus or logind, only network changes are watched; without either, nothing.
@MainActor
final class NetworkWatcher {
    /// Runs after a resume or a network change, with what happened, in words.
    var onWake: (String) -> Void = { _ in }
    /// Seconds a burst of network changes is folded over.
    static let foldingDelay = 0.3

    /// logind's bus name, the object of its manager and the manager's interface.
    nonisolated static let logindName = "org.freedesktop.login1"
    nonisolated static let logindPath = "/org/freedesktop/login1"
    nonisolated static let logindManager = "org.freedesktop.login1.Manager"

    private let logger: Logger
    private var monitorHandler: gulong = 0
    private var monitor: UnsafeMutableRawPointer?
    private var systemBus: BusConnection?
    private var logindWatch: UInt32?
    private var sleepSubscription: UInt32?
    /// The timer that ends the fold of network changes.
    private var foldTimer: guint = 0

    init(logger: Logger) {
        self.logger = logger
    }

    /// Starts watching the network and logind.
    func start() {
        if let monitor = g_network_monitor_get_default() {
            let instance = UnsafeMutableRawPointer(monitor)
            self.monitor = instance
            monitorHandler = GObjectSignals.connectInt(instance, "network-changed") { [weak self] available in
                self?.networkChanged(available: available != 0)
            }
        }
        do {
            let bus = try BusConnection.system()
            systemBus = bus
            logindWatch = bus.watchName(Self.logindName, autoStart: false, appeared: { [weak self] owner in
                self?.logindAppeared(owner)
            }, vanished: { [weak self] in
                self?.endSleepSubscription()
            })
        } catch {
            logger.debug("no system bus, so no word of sleep and resume: \(error)")
        }
    }

    /// Stops watching.
    func stop() {
        if let monitor, monitorHandler != 0 { g_signal_handler_disconnect(monitor, monitorHandler) }
        monitorHandler = 0
        monitor = nil
        endSleepSubscription()
        if let logindWatch, let systemBus { systemBus.unwatchName(logindWatch) }
        logindWatch = nil
        GLibSources.cancel(foldTimer)
        foldTimer = 0
    }

    private func networkChanged(available: Bool) {
        logger.debug("the network changed (\(available ? "a network is available" : "no network"))")
        guard foldTimer == 0 else { return }
        foldTimer = GLibSources.once(after: Self.foldingDelay) { [weak self] in
            guard let self else { return }
            foldTimer = 0
            onWake("the network changed")
        }
    }

    /// Listens to the manager of the process that owns logind's name, and to no other sender.
    private func logindAppeared(_ owner: String) {
        endSleepSubscription()
        sleepSubscription = systemBus?.subscribe(sender: owner, interface: Self.logindManager, member: "PrepareForSleep",
                                                 path: Self.logindPath) { [weak self] _, arguments in
            guard let self, let sleeping = arguments.at(0)?.bool else { return }
            if sleeping {
                logger.info("the system is going to sleep")
            } else {
                logger.info("the system resumed from sleep")
                onWake("the system resumed from sleep")
            }
        }
    }

    private func endSleepSubscription() {
        if let sleepSubscription, let systemBus { systemBus.unsubscribe(sleepSubscription) }
        sleepSubscription = nil
    }
}
