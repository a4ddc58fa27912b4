import Baton
import BatonBus
import BatonGLib
import CGLib
import Foundation

/// The apps of the desktop's recent list as `ListApps` gives them, beside the apps that adopt
/// Baton, so that a person sees them and can block each (by its program's name): named and
/// shown by the desktop entry that runs the same program, else by their name in the list.
@MainActor
enum RecentListApps {
    /// What `ListApps` says of each app the recent list names (`listed`, program and name):
    /// `app-id` (its program), `name`, `source` ("recent list"), `team-id`, `activity-types`
    /// (none: it adopts nothing), `running` (false: it never registers), and `icon` and
    /// `desktop-entry` when a desktop entry runs that program.
    static func records(_ listed: [(program: String, appName: String)]) -> [[String: BusValue]] {
        guard !listed.isEmpty else { return [] }
        let entries = desktopEntries(running: Set(listed.map(\.program)))
        return listed.map { app in
            var record: [String: BusValue] = [
                "app-id": .string(app.program), "name": .string(app.appName), "source": .string("recent list"),
                "team-id": .string(RecentDocuments.teamID), "activity-types": .strings([]), "running": .bool(false),
            ]
            if let entry = entries[app.program] {
                record["name"] = .string(entry.name)
                record["desktop-entry"] = .string(entry.id)
                if let icon = entry.icon { record["icon"] = .string(icon) }
            }
            return record
        }
    }

    /// The desktop entries, shown in menus, whose command runs one of `programs`, by program:
    /// their desktop id, name and icon (a theme icon name, or a file's URI).
    private static func desktopEntries(running programs: Set<String>) -> [String: (id: String, name: String, icon: String?)] {
        guard let all = g_app_info_get_all() else { return [:] }
        defer { g_list_free_full(all, g_object_unref) }
        var found: [String: (id: String, name: String, icon: String?)] = [:]
        var node: UnsafeMutablePointer<GList>? = all
        while let current = node {
            node = current.pointee.next
            guard let data = current.pointee.data else { continue }
            let info = OpaquePointer(data)
            guard g_app_info_should_show(info) != 0, let executable = g_app_info_get_executable(info) else { continue }
            let program = (String(cString: executable) as NSString).lastPathComponent
            guard programs.contains(program), found[program] == nil,
                  let name = g_app_info_get_display_name(info).map({ String(cString: $0) }), !name.isEmpty,
                  !ActivityLimits.containsUnsafe(name), name.utf8.count <= 200
            else { continue }
            let id = g_app_info_get_id(info).map { String(cString: $0) } ?? ""
            found[program] = (id, name, icon(of: info))
        }
        return found
    }

    /// The entry's `Icon=` as ``InstalledApps/notificationIcon(_:)`` takes it.
    private static func icon(of info: OpaquePointer) -> String? {
        let instance = UnsafeMutableRawPointer(info).assumingMemoryBound(to: GTypeInstance.self)
        guard g_type_check_instance_is_a(instance, g_desktop_app_info_get_type()) != 0,
              let value = g_desktop_app_info_get_string(info, "Icon") else { return nil }
        defer { g_free(value) }
        return InstalledApps.notificationIcon(String(cString: value))
    }
}
