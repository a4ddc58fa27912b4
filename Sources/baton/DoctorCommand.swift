import ArgumentParser
import BatonBus
import BatonGLib
import Foundation

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor", abstract: "Say what keeps Handoff from working here, and how to fix it.",
        discussion: """
            Checks that batond runs and how it is started (its D-Bus service file, the \
            systemd user unit or the autostart entry), then asks batond (without starting \
            it) about discovery, its listening address, each paired device, the notification \
            server, the installed apps' desktop entries, the running apps and the settings. \
            Each check passes or fails with one line of what to do. Exits 1 when one fails.
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            var checks = Self.serviceChecks()
            if checks.first?.ok == true {
                let records = try ServiceProxy.call(.diagnose)
                checks += records.map(DiagnosticCheck.init(record:))
            }
            if output.json {
                try JSONOutput.print(checks.map { ["check": $0.check, "ok": $0.ok, "detail": $0.detail, "fix": $0.fix] })
            } else {
                for check in checks {
                    print("\(check.ok ? "✔" : "✘") \(TerminalText.printable(check.check)): \(TerminalText.printable(check.detail))")
                    if !check.ok, !check.fix.isEmpty { print("    fix: \(TerminalText.printable(check.fix))") }
                }
                let failed = checks.filter { !$0.ok }.count
                print(failed == 0 ? "All \(checks.count) checks passed." : "\(failed) of \(checks.count) checks failed.")
            }
            if checks.contains(where: { !$0.ok }) { throw ExitCode.failure }
        }
    }

    /// What this side can see: batond running (never started by the check itself), its
    /// D-Bus service file and what starts it with the session.
    @MainActor
    static func serviceChecks() -> [DiagnosticCheck] {
        let running = (try? BusConnection.session()).flatMap { connection in
            try? connection.callSync("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                     method: "NameHasOwner", arguments: [.string(BatonService.busName)],
                                     autoStart: false, timeout: 5).first?.bool
        } ?? false
        let status = running ? try? ServiceProxy.call(.getStatus) : nil
        let pid = status?["pid"].flatMap { if case .int64(let value) = $0 { value } else { nil } }
        return [ServiceSetupChecks.running(running, pid: pid), ServiceSetupChecks.serviceFile(),
                ServiceSetupChecks.sessionStart()]
    }
}
