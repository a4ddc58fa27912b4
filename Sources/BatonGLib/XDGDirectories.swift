import CGLib
import Foundation

/// The XDG base directories of the current user, as the XDG Base Directory specification
/// defines them: the environment variable when it holds an absolute path, else the default
/// under the home folder (``home``).
public enum XDGDirectories {
    /// The home folder as GLib and every GTK app see it: `$HOME` when set, else the password
    /// database's (`g_get_home_dir`). Foundation's `homeDirectoryForCurrentUser` reads only
    /// the password database, so a session, a container or a test that sets `HOME` elsewhere
    /// would have files written into a home it does not use.
    public static var home: URL {
        URL(fileURLWithPath: String(cString: g_get_home_dir()), isDirectory: true)
    }

    /// `$XDG_STATE_HOME`, or `~/.local/state`: state worth keeping between runs.
    public static var stateHome: URL { base("XDG_STATE_HOME", default: ".local/state") }
    /// `$XDG_DATA_HOME`, or `~/.local/share`: the user's data files.
    public static var dataHome: URL { base("XDG_DATA_HOME", default: ".local/share") }
    /// `$XDG_CONFIG_HOME`, or `~/.config`: the user's configuration.
    public static var configHome: URL { base("XDG_CONFIG_HOME", default: ".config") }

    /// `$XDG_DATA_DIRS`, or `/usr/local/share` and `/usr/share`: the system's data folders,
    /// most important first, relative entries left out.
    public static var dataDirectories: [URL] {
        let value = ProcessInfo.processInfo.environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/usr/local/share:/usr/share"
        return value.split(separator: ":").filter { $0.hasPrefix("/") }
            .map { URL(fileURLWithPath: String($0), isDirectory: true) }
    }

    /// The user's documents folder (`XDG_DOCUMENTS_DIR` in `$XDG_CONFIG_HOME/user-dirs.dirs`,
    /// as GLib reads it), or `~/Documents` where none is set.
    public static var documents: URL {
        if let folder = g_get_user_special_dir(G_USER_DIRECTORY_DOCUMENTS) {
            return URL(fileURLWithPath: String(cString: folder), isDirectory: true)
        }
        return home.appendingPathComponent("Documents", isDirectory: true)
    }

    private static func base(_ variable: String, default relative: String) -> URL {
        if let value = ProcessInfo.processInfo.environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        return home.appendingPathComponent(relative, isDirectory: true)
    }
}
