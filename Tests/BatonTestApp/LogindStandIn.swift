import BatonGLib
import CGLib
import Foundation

/// A stand-in for systemd-logind's sleep signal (no logind runs in the test containers): owns
/// `org.freedesktop.login1` on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, a private one in the
/// tests) and emits `org.freedesktop.login1.Manager.PrepareForSleep` from
/// `/org/freedesktop/login1`, as logind does around a suspend: `true` on SIGUSR1 (going to
/// sleep), `false` on SIGUSR2 (resumed). Writes "logind stand-in ready" once it owns the name,
/// and a line for each signal emitted.
@MainActor
func runLogindStandIn() -> Int32 {
    guard let connection = try? BusConnection.system() else { return 1 }
    let loop = g_main_loop_new(nil, 0)
    func emit(_ sleeping: Bool) {
        connection.emitSignal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                              name: "PrepareForSleep", arguments: [.bool(sleeping)])
        report("PrepareForSleep(\(sleeping))")
    }
    GLibSources.onUnixSignal(SIGUSR1) { emit(true) }
    GLibSources.onUnixSignal(SIGUSR2) { emit(false) }
    connection.ownName("org.freedesktop.login1", acquired: { report("logind stand-in ready") },
                       lost: { g_main_loop_quit(loop) })
    MainQueueBridge.install()
    g_main_loop_run(loop)
    return 0
}
