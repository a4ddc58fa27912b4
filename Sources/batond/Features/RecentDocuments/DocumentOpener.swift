import BatonBus
import BatonGLib
import CGLib
import Foundation

/// Opens a document continued from another device's recent list in the same app here.
///
/// The other device names the program it was open in, but a paired device's word chooses
/// nothing dangerous here: the file's type is read here (never taken from the payload); a
/// program, a script, a desktop entry or an installer is never opened; and the app is one the
/// desktop lists for that type (`MimeType=`), shown in menus (`g_app_info_should_show`), not run
/// in a terminal, and not a web browser. Among those, the one running the same program is
/// chosen, else the type's default.
@MainActor
enum DocumentOpener {
    /// The app found for a continued document: its desktop id and name.
    struct App: Equatable {
        let id: String
        let name: String
    }

    /// Types a document from another device is never opened as, with the types that are kinds
    /// of them: programs, libraries, scripts, desktop entries, installers and packages.
    static let refusedTypes = [
        "application/x-executable", "application/x-sharedlib", "application/x-desktop", "application/x-shellscript",
        "application/x-java-archive", "application/x-ms-dos-executable", "application/x-msdownload", "application/x-msi",
        "application/vnd.microsoft.portable-executable", "application/x-ms-shortcut", "application/vnd.debian.binary-package",
        "application/x-rpm", "application/vnd.flatpak.ref", "application/vnd.flatpak", "application/x-perl",
        "text/x-python", "text/x-python3", "application/x-ruby", "application/javascript", "application/x-m4",
    ]

    /// Whether a file of `contentType` may be opened when it comes from another device.
    static func mayOpen(_ contentType: String) -> Bool {
        g_content_type_is_unknown(contentType) == 0
            && !refusedTypes.contains { g_content_type_is_a(contentType, $0) != 0 }
    }

    /// The app that opens `file` (here, already placed), used in `program` on the other device.
    static func app(for file: URL, program: String?) -> App? {
        withApp(for: file, program: program) { info in
            App(id: g_app_info_get_id(info).map { String(cString: $0) } ?? "",
                name: g_app_info_get_name(info).map { String(cString: $0) } ?? "")
        }
    }

    /// Opens `url` in the app for `program` / `mimeType`, with the person's activation token
    /// so its window comes to the front. GIO starts it detached from batond, by D-Bus
    /// activation where its entry says so; the call ends once the app took the file (or its
    /// start failed).
    ///
    /// - Returns: the app it was opened in.
    /// - Throws: ``ServiceError/activity(_:)`` when no app here opens it or it cannot start.
    static func open(_ url: URL, program: String?, activationToken: String?) async throws -> App {
        let launch: (app: App, info: OpaquePointer)? = withApp(for: url, program: program) { info in
            g_object_ref(UnsafeMutableRawPointer(info))
            return (App(id: g_app_info_get_id(info).map { String(cString: $0) } ?? "",
                        name: g_app_info_get_name(info).map { String(cString: $0) } ?? ""), info)
        }
        guard let launch else {
            let type = SharedDocuments.contentType(ofFileAt: url.path) ?? "this kind of document"
            throw ServiceError.activity(.handoffFailed(mayOpen(type)
                ? "no app on this device opens \(type)" + (program.map { " (it was open in \($0))" } ?? "")
                : "a document of type \(type) from another device is never opened"))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(launch.info)) }
        let context = ActivationLaunchContext.make(token: activationToken)
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        let uris = g_list_append(nil, strdup(url.absoluteString))
        defer { g_list_free_full(uris, free) }
        let failure: String? = await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(LaunchReply { continuation.resume(returning: $0) }).toOpaque()
            g_app_info_launch_uris_async(launch.info, uris, context, nil, { source, result, data in
                guard let data else { return }
                let reply = Unmanaged<LaunchReply>.fromOpaque(data).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                if g_app_info_launch_uris_finish(OpaquePointer(source), result, &error) != 0 {
                    reply.finish(nil)
                } else {
                    reply.finish(BusError(taking: error).message)
                }
            }, box)
        }
        if let failure {
            throw ServiceError.activity(.handoffFailed("\(launch.app.name) could not open the document: \(failure)"))
        }
        return launch.app
    }

    /// The end of one launch, carried through GIO's callback.
    private final class LaunchReply {
        let finish: (String?) -> Void
        init(_ finish: @escaping (String?) -> Void) { self.finish = finish }
    }

    /// Runs `body` with the app found for `file`, if one is.
    private static func withApp<Result>(for file: URL, program: String?, _ body: (OpaquePointer) -> Result) -> Result? {
        guard let type = SharedDocuments.contentType(ofFileAt: file.path), mayOpen(type),
              let candidates = g_app_info_get_all_for_type(type) else { return nil }
        defer { g_list_free_full(candidates, g_object_unref) }
        var allowed: [OpaquePointer] = []
        var node: UnsafeMutablePointer<GList>? = candidates
        while let current = node {
            if let data = current.pointee.data, isAllowed(OpaquePointer(data)) { allowed.append(OpaquePointer(data)) }
            node = current.pointee.next
        }
        if let program, let same = allowed.first(where: { runs($0, program) }) { return body(same) }
        if let fallback = g_app_info_get_default_for_type(type, 0) {
            defer { g_object_unref(UnsafeMutableRawPointer(fallback)) }
            if let listed = allowed.first(where: { g_app_info_equal($0, fallback) != 0 }) { return body(listed) }
        }
        return allowed.first.map(body)
    }

    /// Whether the app runs `program` (its command's file name).
    private static func runs(_ info: OpaquePointer, _ program: String) -> Bool {
        guard let executable = g_app_info_get_executable(info) else { return false }
        return (String(cString: executable) as NSString).lastPathComponent == program
    }

    /// Whether a continued document may be handed to the app: shown in menus, not run in a
    /// terminal, not a web browser.
    private static func isAllowed(_ info: OpaquePointer) -> Bool {
        guard g_app_info_should_show(info) != 0, !isBrowser(info) else { return false }
        let instance = UnsafeMutableRawPointer(info).assumingMemoryBound(to: GTypeInstance.self)
        guard g_type_check_instance_is_a(instance, g_desktop_app_info_get_type()) != 0 else { return true }
        return g_desktop_app_info_get_boolean(info, "Terminal") == 0
    }

    /// Whether the app is a web browser (its entry's categories say `WebBrowser`): a local
    /// file is never handed to one.
    private static func isBrowser(_ info: OpaquePointer) -> Bool {
        let instance = UnsafeMutableRawPointer(info).assumingMemoryBound(to: GTypeInstance.self)
        guard g_type_check_instance_is_a(instance, g_desktop_app_info_get_type()) != 0,
              let categories = g_desktop_app_info_get_categories(info)
        else { return false }
        return String(cString: categories).split(separator: ";").contains("WebBrowser")
    }
}
