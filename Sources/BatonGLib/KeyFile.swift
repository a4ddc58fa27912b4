import CGLib

/// A file in the key-file format of desktop entries, D-Bus service files and Flatpak
/// metadata (GLib's `GKeyFile`): `[Group]` headers and `Key=value` lines.
public struct KeyFile: Sendable {
    private let values: [String: [String: String]]

    /// Reads the file at `path`; `nil` when it cannot be read or is not a key file.
    public init?(path: String) {
        self.init { keyFile, error in g_key_file_load_from_file(keyFile, path, G_KEY_FILE_NONE, &error) }
    }

    /// Parses `text`; `nil` when it is not a key file.
    public init?(text: String) {
        self.init { keyFile, error in g_key_file_load_from_data(keyFile, text, gsize(text.utf8.count), G_KEY_FILE_NONE, &error) }
    }

    private init?(load: (OpaquePointer?, inout UnsafeMutablePointer<GError>?) -> gboolean) {
        guard let keyFile = g_key_file_new() else { return nil }
        defer { g_key_file_free(keyFile) }
        var error: UnsafeMutablePointer<GError>?
        guard load(keyFile, &error) != 0 else {
            g_clear_error(&error)
            return nil
        }
        var values: [String: [String: String]] = [:]
        for group in Self.strings(g_key_file_get_groups(keyFile, nil)) {
            var entries: [String: String] = [:]
            for key in Self.strings(g_key_file_get_keys(keyFile, group, nil, nil)) {
                guard let value = g_key_file_get_string(keyFile, group, key, nil) else { continue }
                entries[key] = String(cString: value)
                g_free(value)
            }
            values[group] = entries
        }
        self.values = values
    }

    /// The value of `key` in `group`, escapes (`\s`, `\n`, `\\`...) undone; `nil` when absent.
    public func string(_ group: String, _ key: String) -> String? {
        values[group]?[key]
    }

    /// `true` or `false` as the key-file format spells them; `nil` when absent or anything else.
    public func bool(_ group: String, _ key: String) -> Bool? {
        switch string(group, key) {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }

    /// Takes and frees a `NULL`-terminated string vector.
    private static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { g_strfreev(vector) }
        var result: [String] = []
        var index = 0
        while let item = vector[index] {
            result.append(String(cString: item))
            index += 1
        }
        return result
    }
}
