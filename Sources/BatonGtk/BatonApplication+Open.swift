import CGLib
import CGtk

/// Files and URIs the app is asked to open (GApplication's `open`): from its command line,
/// from a second launch passed to the running instance, or from the desktop (a `mailto:`
/// link, a file opened with the app).
@MainActor
extension BatonApplication {
    /// Connects ``onOpen`` to GApplication's `open`, which GLib emits only for an
    /// application made with `G_APPLICATION_HANDLES_OPEN`.
    func connectOpenSignal() {
        let box = Unmanaged.passRetained(OpenHandler(self)).toOpaque()
        let trampoline: @convention(c) (gpointer?, UnsafeMutablePointer<OpaquePointer?>?, gint, UnsafePointer<gchar>?,
                                        gpointer?) -> Void = { _, files, count, _, data in
            guard let data, let files else { return }
            var uris: [String] = []
            for index in 0..<Int(max(count, 0)) {
                guard let file = files[index], let uri = g_file_get_uri(file) else { continue }
                uris.append(String(cString: uri))
                g_free(uri)
            }
            let handler = Unmanaged<OpenHandler>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { handler.application?.didOpen(uris) }
        }
        baton_signal_connect(UnsafeMutableRawPointer(gtkApplication), "open",
                             unsafeBitCast(trampoline, to: GCallback.self), box, { data, _ in
                                 guard let data else { return }
                                 Unmanaged<OpenHandler>.fromOpaque(data).release()
                             })
    }

    private func didOpen(_ uris: [String]) {
        onOpen?(uris)
    }
}

/// What GApplication's `open` handler holds: the application, weakly.
private final class OpenHandler {
    weak var application: BatonApplication?

    init(_ application: BatonApplication) {
        self.application = application
    }
}
