import Foundation
import Glibc

/// The programs this user runs now, by name ("evince", "gedit"), read from `/proc`: the file
/// each process runs (`/proc/PID/exe`), which only the user's own processes show.
enum RunningPrograms {
    /// The names of the programs this user's processes run.
    static func names(procRoot: String = "/proc") -> Set<String> {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: procRoot) else { return [] }
        var names = Set<String>()
        for entry in entries where entry.allSatisfy(\.isNumber) {
            if let name = program(ofProcess: entry, procRoot: procRoot) { names.insert(name) }
        }
        return names
    }

    /// Whether `name` may name a program, as an app of the recent list is known by (and
    /// blocked by): 1 to 255 bytes, no folder, not `.` or `..`, and no space, control or
    /// format character (bidi overrides, zero-width ones: a name that reads as another's).
    /// Every valid application id is one too.
    static func isProgramName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name != "." && name != ".." && !name.contains("/")
            && !name.unicodeScalars.contains { scalar in
                scalar.properties.isWhitespace || [.control, .format, .privateUse, .surrogate, .unassigned, .lineSeparator,
                                                   .paragraphSeparator].contains(scalar.properties.generalCategory)
            }
    }

    /// The name of the program process `pid` runs, if it is this user's.
    static func program(of pid: Int32) -> String? {
        program(ofProcess: String(pid), procRoot: "/proc")
    }

    private static func program(ofProcess pid: String, procRoot: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("\(procRoot)/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A program replaced while running reads "/usr/bin/evince (deleted)".
        let name = (path.replacingOccurrences(of: " (deleted)", with: "") as NSString).lastPathComponent
        return name.isEmpty ? nil : name
    }
}
