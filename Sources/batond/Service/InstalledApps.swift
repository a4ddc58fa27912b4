import Baton
import BatonBus
import BatonGLib
import CGLib
import Foundation

/// An installed app that claims activity types in its desktop entry.
struct InstalledApp: ActivityClaimant, Sendable {
    /// The desktop file id without `.desktop`: the application id for a D-Bus-activatable entry.
    let appID: String
    let teamID: String
    let activityTypes: Set<String>
    let desktopFile: String
    let isDBusActivatable: Bool
    /// The entry's `Icon=`: a theme icon name, or a file as a `file://` URI; `nil` when it
    /// names none, or nothing a notification could show.
    var icon: String? = nil
    /// The entry's `Name=` in the person's language.
    var name: String? = nil
    /// What it continues, in words for a person ("Mail drafts and messages"): the entry's
    /// `X-Baton-Continues=` in the person's language, else its `Comment=`.
    var continues: String? = nil
    /// Whether it is a helper rather than an app a person opens (`NoDisplay=true`, such as
    /// the browser extension's host): shown by what it continues.
    var isHelper = false
    /// The documents it continues (`X-Baton-DocumentTypes`).
    var documentTypes = DocumentTypeClaims(nil, claimedActivityTypes: [])
    /// The web domains whose pages it continues, once their sites confirm it (`X-Baton-Domains`).
    var domains: [DomainClaim] = []
    /// The entries of `X-Baton-Domains` that are not domains.
    var invalidDomains: [String] = []

    func claims(_ activityType: String) -> Bool { activityTypes.contains(activityType) }

    /// What is wrong with the entry's file name, `nil` when it can be an app's id: a desktop
    /// entry's file name is its app's id, since an app registers with the Baton service, and
    /// is verified, under its GApplication id.
    var fileNameProblem: String? {
        g_application_id_is_valid(appID) != 0 ? nil : InstalledApps.fileNameRule(appID)
    }
}

/// The installed apps that can continue activities, read from desktop entries.
///
/// An entry claims activity types with two keys, beside `MimeType=`:
///
///     X-Baton-ActivityTypes=org.example.mail.compose;org.example.mail.read;
///     X-Baton-TeamID=org.example
///
/// A document app adds the activity type of each MIME type it opens (``DocumentTypeClaims``):
///
///     X-Baton-DocumentTypes=text/markdown:org.example.texteditor.editing;
///
/// Entries are read from `applications/` under `$XDG_DATA_HOME` and each of
/// `$XDG_DATA_DIRS`, earlier folders winning for the same desktop file id, as desktop
/// environments do. The folders are read again at each lookup, so a newly installed app is
/// found without restarting the service.
enum InstalledApps {
    static let activityTypesKey = "X-Baton-ActivityTypes"
    static let teamIDKey = "X-Baton-TeamID"

    /// The `applications` folders, most important first.
    static var applicationFolders: [URL] {
        ([XDGDirectories.dataHome] + XDGDirectories.dataDirectories).map {
            $0.appendingPathComponent("applications", isDirectory: true)
        }
    }

    /// Every installed app with a Baton claim.
    static func all() -> [InstalledApp] {
        var seen = Set<String>()
        var result: [InstalledApp] = []
        for folder in applicationFolders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".desktop") {
                guard seen.insert(name).inserted else { continue }
                if let app = read(folder.appendingPathComponent(name)) { result.append(app) }
            }
        }
        return result
    }

    /// Reads one desktop entry; `nil` unless it is a valid, shown entry with a Baton claim.
    static func read(_ file: URL) -> InstalledApp? {
        guard let info = g_desktop_app_info_new_from_filename(file.path) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        guard let claims = DeclaredClaims(teamID: string(info, teamIDKey), activityTypes: string(info, activityTypesKey))
        else { return nil }
        let displayName: UnsafePointer<CChar>? = g_app_info_get_display_name(info)
        let domains = DomainClaim.parse(string(info, DomainClaim.key))
        return InstalledApp(appID: String(file.deletingPathExtension().lastPathComponent), teamID: claims.teamID,
                            activityTypes: claims.activityTypes, desktopFile: file.path,
                            isDBusActivatable: g_desktop_app_info_get_boolean(info, "DBusActivatable") != 0,
                            icon: notificationIcon(string(info, "Icon")),
                            name: displayName.map { String(cString: $0) },
                            continues: continuesText(info),
                            isHelper: g_app_info_should_show(info) == 0,
                            documentTypes: DocumentTypeClaims(string(info, DocumentTypeClaims.key),
                                                              claimedActivityTypes: claims.activityTypes),
                            domains: domains.claims, invalidDomains: domains.invalid)
    }

    /// The rule an entry named `name.desktop` breaks when `name` is not an app id, and the
    /// app registered as `registeredAs`, if known.
    static func fileNameRule(_ name: String, registeredAs appID: String? = nil) -> String {
        let wanted = appID.map { "\($0).desktop" } ?? "the app's id, such as org.example.Todo.desktop"
        return "a desktop entry's file name must be its app's id (its GApplication id): \(name).desktop should be "
            + wanted + (appID == nil ? ", and “\(name)” is not an app id" : "")
    }

    /// Whether the desktop's MIME database (shared-mime-info) knows `mimeType`, itself or as
    /// an alias: a type it does not know is never a file's.
    static func isKnownMIMEType(_ mimeType: String) -> Bool {
        guard let contentType = g_content_type_from_mime_type(mimeType) else { return false }
        defer { g_free(contentType) }
        let registered = g_content_types_get_registered()
        defer { g_list_free_full(registered, g_free) }
        var node = registered
        while let current = node {
            if let data = current.pointee.data, g_content_type_equals(data.assumingMemoryBound(to: CChar.self), contentType) != 0 {
                return true
            }
            node = current.pointee.next
        }
        return false
    }

    /// The key in which an entry says, in words for a person, what the app continues.
    static let continuesKey = "X-Baton-Continues"

    /// `X-Baton-Continues=` in the person's language, else `Comment=`; `nil` when neither is
    /// there, or either holds unsafe characters or is over 200 bytes.
    private static func continuesText(_ info: OpaquePointer) -> String? {
        let localized = g_desktop_app_info_get_locale_string(info, continuesKey).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        let comment: UnsafePointer<CChar>? = g_app_info_get_description(info)
        guard let text = localized ?? comment.map({ String(cString: $0) }), !text.isEmpty, text.utf8.count <= 200,
              !ActivityLimits.containsUnsafe(text) else { return nil }
        return text
    }

    /// `icon`, an entry's `Icon=`, as a notification's `app_icon`: an icon name as it is, an
    /// absolute path as a `file://` URI; `nil` for anything else.
    static func notificationIcon(_ icon: String?) -> String? {
        guard let icon, !icon.isEmpty, icon.utf8.count <= 4096, !ActivityLimits.containsUnsafe(icon) else { return nil }
        if icon.hasPrefix("/") { return URL(fileURLWithPath: icon).absoluteString }
        return icon.contains("/") ? nil : icon
    }

    /// The programs the desktop entry `APPID.desktop` names, and the claims it declares, if
    /// any: the first such file of ``applicationFolders`` (where a Flatpak's exported entries
    /// are too). `nil` when there is none, or when that entry is `Hidden=true` (the app is
    /// uninstalled for this user). For a `DBusActivatable=true` entry, the `Exec=` of the
    /// app's D-Bus service file comes along.
    static func entryPrograms(of appID: String) -> DesktopEntryPrograms? {
        guard !appID.contains("/") else { return nil }
        for folder in applicationFolders {
            let path = folder.appendingPathComponent("\(appID).desktop").path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let group = "Desktop Entry"
            guard let file = KeyFile(path: path) else {
                return DesktopEntryPrograms(path: path, exec: nil, tryExec: nil, serviceExec: nil)
            }
            if file.bool(group, "Hidden") == true { return nil }
            return DesktopEntryPrograms(
                path: path, exec: file.string(group, "Exec"), tryExec: file.string(group, "TryExec"),
                serviceExec: file.bool(group, "DBusActivatable") == true ? DBusServiceFiles.exec(forName: appID) : nil,
                claims: DeclaredClaims(teamID: file.string(group, teamIDKey),
                                       activityTypes: file.string(group, activityTypesKey)))
        }
        return nil
    }

    /// Starts the app to continue an activity of `activityType`: D-Bus activation when its
    /// entry is `DBusActivatable` (GIO asks the bus, which starts it), else its `Exec` line,
    /// spawned detached from batond: the process calls `setsid()` before `exec`, so it leads a
    /// session and process group of its own, and no signal meant for batond's (a terminal's
    /// hangup, a group kill) reaches it. It stays batond's child, unreaped, so its pid cannot
    /// be reused while batond matches registrations against it: reap it with
    /// ``AppLauncher/reap(_:appID:logger:)``. A process started from its `Exec` line finds
    /// `BATON_LAUNCH_REASON=continue` and `BATON_CONTINUE_TYPE` in its environment, so it knows
    /// why it was started (BatonGtk's `LaunchReason`), and with `activationToken` also
    /// `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID`, which GTK uses to bring its first
    /// window to the front. ``AppLauncher`` chooses the route and
    /// calls this.
    ///
    /// - Returns: the process started, or `nil` for D-Bus activation, which the bus starts.
    /// - Throws: ``ServiceError/activity(_:)`` with `handoffFailed` when it cannot start.
    static func launch(_ app: InstalledApp, toContinue activityType: String,
                       activationToken: String? = nil) throws -> Int32? {
        guard let info = g_desktop_app_info_new_from_filename(app.desktopFile) else {
            throw ServiceError.activity(.handoffFailed("the desktop entry of \(app.appID) is gone"))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        let context = ActivationLaunchContext.make(token: activationToken)
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        g_app_launch_context_setenv(context, BatonService.launchReasonVariable, BatonService.launchReasonContinue)
        g_app_launch_context_setenv(context, BatonService.launchActivityTypeVariable, activityType)
        var error: UnsafeMutablePointer<GError>?
        var started: Int32 = 0
        // One fork, no intermediate child: the pid GIO reports is the app's own, batond's
        // child until reaped.
        let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        let launched = withUnsafeMutablePointer(to: &started) { pid in
            g_desktop_app_info_launch_uris_as_manager(info, nil, context, flags, detachInChild, nil, { _, child, data in
                data?.assumingMemoryBound(to: Int32.self).pointee = child
            }, pid, &error)
        }
        guard launched != 0 else {
            throw ServiceError.activity(.handoffFailed("\(app.appID) could not be started: \(BusError(taking: error).message)"))
        }
        return started > 0 ? started : nil
    }

    /// Runs in the forked child before `exec`: a new session and process group. Only
    /// async-signal-safe calls belong here (batond has threads), and `setsid()` is one.
    private static let detachInChild: GSpawnChildSetupFunc = { _ in
        _ = setsid()
    }

    /// Whether process `pid` is `ancestor` or runs under it (a wrapper script's child, say),
    /// following parent processes through `/proc`.
    static func process(_ pid: Int32, isOrDescendsFrom ancestor: Int32) -> Bool {
        var current = pid
        for _ in 0..<32 {
            if current == ancestor { return true }
            guard current > 1, let parent = parentProcess(of: current) else { return false }
            current = parent
        }
        return false
    }

    /// The parent of process `pid`, from `/proc/PID/stat` (the field after the state, which
    /// follows the command name's closing parenthesis).
    private static func parentProcess(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1 else { return nil }
        return Int32(fields[1])
    }

    /// Opens an http or https URL in the user's default browser (the handler of its scheme).
    ///
    /// - Throws: ``ServiceError/activity(_:)`` with `handoffFailed` when there is no browser.
    static func openInBrowser(_ url: URL) throws {
        var error: UnsafeMutablePointer<GError>?
        guard g_app_info_launch_default_for_uri(url.absoluteString, nil, &error) != 0 else {
            throw ServiceError.activity(.handoffFailed("no browser opened \(url.absoluteString): \(BusError(taking: error).message)"))
        }
    }

    private static func string(_ info: OpaquePointer, _ key: String) -> String? {
        guard let value = g_desktop_app_info_get_string(info, key) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }
}
