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

    /// The most of `/proc/PID/cmdline` read.
    static let maximumCommandLineSize = 64 * 1024

    /// The arguments process `pid` was started with, past its program (`/proc/PID/cmdline`);
    /// `nil` when the process is gone or belongs to someone else. A process can rewrite its
    /// own: evidence against accidents, not against a program of the same user.
    public static func arguments(of pid: Int32) -> [String]? {
        guard pid > 0, let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/cmdline") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumCommandLineSize), !data.isEmpty else { return nil }
        var words = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if words.last == "" { words.removeLast() }
        return Array(words.dropFirst())
    }

    /// The folder process `pid` works in (`/proc/PID/cwd`); `nil` when it cannot be read.
    public static func workingDirectory(of pid: Int32) -> String? {
        guard pid > 0 else { return nil }
        return try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
    }

    /// The interpreter the script at `path` names in its first line (`#!/usr/bin/python3`,
    /// or past `env` and its options: `#!/usr/bin/env python3`); `nil` when the file is not
    /// such a script or cannot be read.
    public static func interpreter(ofScript path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 256), data.starts(with: Array("#!".utf8)) else { return nil }
        let line = String(decoding: data.dropFirst(2).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first, first.hasPrefix("/") else { return nil }
        guard first.hasSuffix("/env") else { return first }
        words.removeFirst()
        return words.first { !$0.hasPrefix("-") && !ExecLine.isAssignment($0) }
    }

    /// The `PATH` of this process.
    public static var searchPath: String? { ProcessInfo.processInfo.environment["PATH"] }
}
