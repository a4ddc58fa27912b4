import Foundation

/// The programs processes run, as Linux shows them in `/proc`, and the comparison of one with
/// a program named in a file.
public enum ProcessExecutable {
    /// The program process `pid` runs (`/proc/PID/exe`), without the ` (deleted)` Linux adds
    /// once the file was replaced; `nil` when the process is gone or belongs to someone else.
    public static func path(of pid: Int32) -> String? {
        guard pid > 0, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        else { return nil }
        return target.hasSuffix(" (deleted)") ? String(target.dropLast(" (deleted)".count)) : target
    }

    /// `path` with symbolic links, `.` and `..` resolved (`realpath`); `path` itself when it
    /// does not resolve (a file since deleted).
    public static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where `program` is: itself when it is an absolute path, else the first executable file
    /// of that name in the folders of `searchPath` (`PATH`'s format); `nil` when none.
    public static func locate(_ program: String, searchPath: String?) -> String? {
        if program.hasPrefix("/") { return program }
        guard !program.contains("/") else { return nil }
        let folders = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").filter { $0.hasPrefix("/") }
        for folder in folders {
            let candidate = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether `executable` (from ``path(of:)``) is the file `program` names, once both are
    /// resolved (``locate(_:searchPath:)``, then ``canonical(_:)``).
    public static func executable(_ executable: String, is program: String, searchPath: String?) -> Bool {
        guard let located = locate(program, searchPath: searchPath) else { return false }
        return canonical(executable) == canonical(located)
    }

    /// The `PATH` of this process.
    public static var searchPath: String? { ProcessInfo.processInfo.environment["PATH"] }
}
