import BatonGLib
import Foundation

/// The checks of how batond is installed and started, which only a client can make (batond
/// cannot report that it is not running): `baton doctor` and the Baton app's Doctor page
/// show them before batond's own.
public enum ServiceSetupChecks {
    /// Whether batond runs: `pid` is the one `GetStatus` reported, when it runs.
    public static func running(_ isRunning: Bool, pid: Int64? = nil) -> DiagnosticCheck {
        if isRunning {
            return .pass("service", "batond runs and owns \(BatonService.busName)\(pid.map { " (pid \($0))" } ?? "")")
        }
        return .fail("service", "batond is not running: this device neither offers nor receives anything",
                     fix: DBusServiceFiles.exec(forName: BatonService.busName) == nil
                        ? "install it: scripts/install-service.sh"
                        : "start it: systemctl --user start batond (or any baton command, which starts it through D-Bus)")
    }

    /// The D-Bus service file that starts batond when an app or `baton` needs it, and the
    /// program it names.
    public static func serviceFile() -> DiagnosticCheck {
        let name = "D-Bus service file"
        guard let exec = DBusServiceFiles.exec(forName: BatonService.busName) else {
            return .fail(name, "no \(BatonService.busName).service in dbus-1/services: nothing starts batond when an app needs it",
                         fix: "install it: scripts/install-service.sh")
        }
        let program = ExecLine.program(of: exec) ?? exec
        if let path = ProcessExecutable.locate(program, searchPath: ProcessExecutable.searchPath),
           FileManager.default.isExecutableFile(atPath: path) {
            return .pass(name, "\(BatonService.busName).service starts \(program)")
        }
        return .fail(name, "\(BatonService.busName).service names \(program), which is not installed",
                     fix: "reinstall: scripts/install-service.sh")
    }

    /// Whether batond starts with the session: the systemd user unit enabled, or an
    /// autostart entry that is not hidden.
    public static func sessionStart() -> DiagnosticCheck {
        let name = "starts with the session"
        let config = XDGDirectories.configHome
        let unit = config.appendingPathComponent("systemd/user/graphical-session.target.wants/batond.service")
        if FileManager.default.fileExists(atPath: unit.path) {
            return .pass(name, "the systemd user unit is enabled (\(unit.path))")
        }
        let folders = [config] + (ProcessInfo.processInfo.environment["XDG_CONFIG_DIRS"] ?? "/etc/xdg")
            .split(separator: ":").map { URL(fileURLWithPath: String($0), isDirectory: true) }
        for folder in folders {
            let entry = folder.appendingPathComponent("autostart/\(BatonService.busName).desktop")
            guard let keys = KeyFile(path: entry.path) else { continue }
            if keys.bool("Desktop Entry", "Hidden") == true { break }   // the user turned it off
            return .pass(name, "autostart entry \(entry.path)")
        }
        return .fail(name, "neither the systemd user unit is enabled nor an autostart entry present: until an app or baton starts batond, other devices do not see this one",
                     fix: "scripts/install-service.sh enables it (or: systemctl --user enable batond)")
    }
}
