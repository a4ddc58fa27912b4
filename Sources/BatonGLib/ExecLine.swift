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
        command(of: line)?.first.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The file the line's program runs, when it names one as an interpreter is given its
    /// script: its first argument that is not an option, when that is an absolute path
    /// (`env A=1 /usr/bin/python3 -u /opt/notes/notes.py %U` → `/opt/notes/notes.py`).
    public static func script(of line: String) -> String? {
        guard let command = command(of: line) else { return nil }
        return firstOperand(command.dropFirst()).flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    /// The first of a program's `arguments` that is not an option (`-u`, `--flag`): the
    /// script an interpreter is given, when it is given one.
    public static func firstOperand(_ arguments: some Sequence<String>) -> String? {
        arguments.first { !$0.hasPrefix("-") }
    }

    /// The line's words from its program on: past an `env` and its `VAR=value` words.
    static func command(of line: String) -> [String]? {
        guard var words = words(line), let first = words.first else { return nil }
        if first == "env" || first.hasSuffix("/env") {
            words.removeFirst()
            words = Array(words.drop(while: isAssignment))
        }
        return words
    }

    /// Whether `word` is a `NAME=value` assignment, as `env` takes them.
    public static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        let name = word[..<equals]
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
            && !("0"..."9").contains(name.unicodeScalars.first ?? "0")
    }
}
