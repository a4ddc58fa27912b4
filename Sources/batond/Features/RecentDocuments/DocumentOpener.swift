import BatonBus
import BatonGLib
import CGLib
import Foundation

/// Opens a document continued from another device's recent list in the same app here: the
/// installed app whose command runs the same program ("evince"), else the app the desktop
/// opens the file's type with, but never a web browser for a local file.
@MainActor
enum DocumentOpener {
    /// The app found for a continued document: its desktop id and name.
    struct App: Equatable {
        let id: String
        let name: String
    }

    /// The app that opens a document used in `program` on the other device, of `mimeType`.
    static func app(forProgram program: String?, mimeType: String?) -> App? {
        withApp(forProgram: program, mimeType: mimeType) { info in
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
    static func open(_ url: URL, program: String?, mimeType: String?, activationToken: String?) async throws -> App {
        let launch: (app: App, info: OpaquePointer)? = withApp(forProgram: program, mimeType: mimeType) { info in
            g_object_ref(UnsafeMutableRawPointer(info))
            return (App(id: g_app_info_get_id(info).map { String(cString: $0) } ?? "",
                        name: g_app_info_get_name(info).map { String(cString: $0) } ?? ""), info)
        }
        guard let launch else {
            throw ServiceError.activity(.handoffFailed("no app on this device opens \(mimeType ?? "this document")"
                + (program.map { " (it was open in \($0))" } ?? "")))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(launch.info)) }
        let context = g_app_launch_context_new()
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        if let activationToken {
            g_app_launch_context_setenv(context, "XDG_ACTIVATION_TOKEN", activationToken)
            g_app_launch_context_setenv(context, "DESKTOP_STARTUP_ID", activationToken)
        }
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

    /// Runs `body` with the app found, if one is.
    private static func withApp<Result>(forProgram program: String?, mimeType: String?,
                                        _ body: (OpaquePointer) -> Result) -> Result? {
        if let program, let all = g_app_info_get_all() {
            defer { g_list_free_full(all, g_object_unref) }
            var node: UnsafeMutablePointer<GList>? = all
            while let current = node {
                if let data = current.pointee.data {
                    let info = OpaquePointer(data)
                    if let executable = g_app_info_get_executable(info),
                       (String(cString: executable) as NSString).lastPathComponent == program, !isBrowser(info) {
                        return body(info)
                    }
                }
                node = current.pointee.next
            }
        }
        if let mimeType, let info = g_app_info_get_default_for_type(mimeType, 0) {
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            if !isBrowser(info) { return body(info) }
        }
        return nil
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
