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
                let records = try ServiceProxy.call("Diagnose").at(0)?.dictionaries ?? []
                checks += records.map(Check.init)
            }
            if output.json {
                try JSONOutput.print(checks.map { ["check": $0.name, "ok": $0.ok, "detail": $0.detail, "fix": $0.fix] })
            } else {
                for check in checks {
                    print("\(check.ok ? "✔" : "✘") \(TerminalText.printable(check.name)): \(TerminalText.printable(check.detail))")
                    if !check.ok, !check.fix.isEmpty { print("    fix: \(TerminalText.printable(check.fix))") }
                }
                let failed = checks.filter { !$0.ok }.count
                print(failed == 0 ? "All \(checks.count) checks passed." : "\(failed) of \(checks.count) checks failed.")
            }
            if checks.contains(where: { !$0.ok }) { throw ExitCode.failure }
        }
    }

    /// One check's result.
    struct Check {
        let name: String
        let ok: Bool
        let detail: String
        let fix: String

        init(name: String, ok: Bool, detail: String, fix: String = "") {
            (self.name, self.ok, self.detail, self.fix) = (name, ok, detail, fix)
        }

        init(_ record: [String: BusValue]) {
            self.init(name: record["check"]?.string ?? "?", ok: record["ok"]?.bool ?? false,
                      detail: record["detail"]?.string ?? "", fix: record["fix"]?.string ?? "")
        }
    }

    /// What this side can see: batond running (never started by the check itself), its
    /// D-Bus service file and what starts it with the session.
    @MainActor
    static func serviceChecks() -> [Check] {
        let serviceExec = DBusServiceFiles.exec(forName: BatonService.busName)
        var checks: [Check] = []
        let running = (try? BusConnection.session()).flatMap { connection in
            try? connection.callSync("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                     method: "NameHasOwner", arguments: [.string(BatonService.busName)],
                                     autoStart: false, timeout: 5).first?.bool
        } ?? false
        if running {
            let status = (try? ServiceProxy.call("GetStatus").at(0)?.dictionary) ?? nil
            let pid = status?["pid"].flatMap { if case .int64(let value) = $0 { value } else { nil } }.map { " (pid \($0))" } ?? ""
            checks.append(Check(name: "service", ok: true, detail: "batond runs and owns \(BatonService.busName)\(pid)"))
        } else {
            checks.append(Check(name: "service", ok: false, detail: "batond is not running: this device neither offers nor receives anything",
                                fix: serviceExec == nil ? "install it: scripts/install-service.sh"
                                    : "start it: systemctl --user start batond (or any baton command, which starts it through D-Bus)"))
        }
        if let exec = serviceExec {
            let program = ExecLine.program(of: exec) ?? exec
            if let path = ProcessExecutable.locate(program, searchPath: ProcessExecutable.searchPath),
               FileManager.default.isExecutableFile(atPath: path) {
                checks.append(Check(name: "D-Bus service file", ok: true, detail: "\(BatonService.busName).service starts \(program)"))
            } else {
                checks.append(Check(name: "D-Bus service file", ok: false,
                                    detail: "\(BatonService.busName).service names \(program), which is not installed",
                                    fix: "reinstall: scripts/install-service.sh"))
            }
        } else {
            checks.append(Check(name: "D-Bus service file", ok: false,
                                detail: "no \(BatonService.busName).service in dbus-1/services: nothing starts batond when an app needs it",
                                fix: "install it: scripts/install-service.sh"))
        }
        checks.append(sessionStartCheck())
        return checks
    }

    /// Whether batond starts with the session: the systemd user unit enabled, or an
    /// autostart entry that is not hidden.
    static func sessionStartCheck() -> Check {
        let config = XDGDirectories.configHome
        let unit = config.appendingPathComponent("systemd/user/graphical-session.target.wants/batond.service")
        if FileManager.default.fileExists(atPath: unit.path) {
            return Check(name: "starts with the session", ok: true, detail: "the systemd user unit is enabled (\(unit.path))")
        }
        let folders = [config] + (ProcessInfo.processInfo.environment["XDG_CONFIG_DIRS"] ?? "/etc/xdg")
            .split(separator: ":").map { URL(fileURLWithPath: String($0), isDirectory: true) }
        for folder in folders {
            let entry = folder.appendingPathComponent("autostart/\(BatonService.busName).desktop")
            guard let keys = KeyFile(path: entry.path) else { continue }
            if keys.bool("Desktop Entry", "Hidden") == true { break }   // the user turned it off
            return Check(name: "starts with the session", ok: true, detail: "autostart entry \(entry.path)")
        }
        return Check(name: "starts with the session", ok: false,
                     detail: "neither the systemd user unit is enabled nor an autostart entry present: until an app or baton starts batond, other devices do not see this one",
                     fix: "scripts/install-service.sh enables it (or: systemctl --user enable batond)")
    }
}
