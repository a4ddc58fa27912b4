import CGLib
import Foundation

/// The program an `Exec=` line starts, as desktop entries and D-Bus service files write it:
/// the first word, past an `env` and its `VAR=value` words.
///
///     Exec=env GDK_BACKEND=x11 "/opt/Mail Composer/bin/mail" --compose %U   →  /opt/Mail Composer/bin/mail
public enum ExecLine {
    /// The line's words, quotes and backslashes undone as a shell would; `nil` when the line
    /// does not parse (an unclosed quote).
    public static func words(_ line: String) -> [String]? {
        var count: gint = 0
        var vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        guard g_shell_parse_argv(line, &count, &vector, &error) != 0, let vector else {
            g_clear_error(&error)
            return nil
        }
        defer { g_strfreev(vector) }
        return (0..<Int(count)).compactMap { vector[$0].map { String(cString: $0) } }
    }

    /// The program the line runs, as written (a path or a name to look up in `PATH`); `nil`
    /// for an empty or malformed line.
    public static func program(of line: String) -> String? {
        guard var words = words(line), let first = words.first else { return nil }
        if first == "env" || first.hasSuffix("/env") {
            words.removeFirst()
            words = Array(words.drop(while: isAssignment))
        }
        return words.first.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `word` is a `NAME=value` assignment, as `env` takes them.
    static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        let name = word[..<equals]
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
            && !("0"..."9").contains(name.unicodeScalars.first ?? "0")
    }
}
