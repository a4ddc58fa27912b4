import BatonGLib
import CGLib
import Foundation

/// Registers `count` times with batond from this one process, each time on a connection of
/// its own, as `appID`; prints `registration N: ok` or `registration N: failed: ERROR` for
/// each, then `done`, and keeps the connections (so the registrations) until it is stopped.
@MainActor
func runRegistrations(count: Int, appID: String, teamID: String, types: [String]) -> Int32 {
    guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else { return 1 }
    MainQueueBridge.install()
    let kept = KeptConnections()
    Task { @MainActor in
        for index in 1...max(1, count) {
            do {
                let connection = try BusConnection.bus(at: address)
                kept.connections.append(connection)
                _ = try await connection.call("org.baton.Daemon", path: "/org/baton/Daemon", interface: "org.baton.Daemon1",
                                              method: "Register", arguments: [.string(appID), .string(teamID), .strings(types)],
                                              timeout: 10)
                report("registration \(index): ok")
            } catch {
                report("registration \(index): failed: \(error)")
            }
        }
        report("done")
    }
    let loop = g_main_loop_new(nil, 0)
    g_main_loop_run(loop)
    return 0
}

/// The connections a registration lives on, kept open until the process ends.
@MainActor
final class KeptConnections {
    var connections: [BusConnection] = []
}
