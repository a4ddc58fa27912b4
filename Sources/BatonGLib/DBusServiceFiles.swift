import Foundation

/// The session bus's service files (`dbus-1/services/NAME.service` under `$XDG_DATA_HOME`
/// and each of `$XDG_DATA_DIRS`): what the bus starts for a name.
public enum DBusServiceFiles {
    /// The folders, most important first.
    public static var folders: [URL] {
        ([XDGDirectories.dataHome] + XDGDirectories.dataDirectories).map {
            $0.appendingPathComponent("dbus-1/services", isDirectory: true)
        }
    }

    /// The `Exec=` line of the first `NAME.service` file whose `Name=` is `name`; `nil` when
    /// no such file is installed.
    public static func exec(forName name: String) -> String? {
        for folder in folders {
            let path = folder.appendingPathComponent("\(name).service").path
            guard let file = KeyFile(path: path), file.string("D-BUS Service", "Name") == name else { continue }
            return file.string("D-BUS Service", "Exec")
        }
        return nil
    }
}
