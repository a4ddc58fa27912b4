import BatonGLib
import CGLib
import CGtk

/// Windows come to the front in the order the app presents them, on every desktop.
///
/// A Wayland compositor maps the windows presented in one main-loop turn in an order of its
/// own (sway maps them last first, so the first presented ends up focused). So a window
/// presented while another window of the app waits for its surface to be mapped waits too,
/// and is presented once that one is on screen (or after ``mappingWait`` seconds, should the
/// compositor never map it): the last window presented is the one in front, as on X11.
@MainActor
extension BatonApplication {
    /// How long, in seconds, a presentation waits for an earlier window to be mapped.
    static let mappingWait: Double = 1

    /// Presents `window` now, or once the windows presented before it are mapped.
    func present(_ window: ApplicationWindow) {
        guard let gtkWindow = window.gtkWindow else { return }
        guard windowsAwaitingMap.isEmpty || windowsAwaitingMap == [ObjectIdentifier(window)] else {
            if !deferredPresentations.contains(where: { $0 === window }) { deferredPresentations.append(window) }
            return
        }
        if let token = takeActivationToken() {
            baton_window_set_activation_token(gtkWindow, token)
        }
        gtk_window_present(gtkWindow)
        awaitMapping(of: window)
    }

    /// Notes that `window` waits for its surface to be mapped, and presents the windows
    /// deferred behind it once it is.
    private func awaitMapping(of window: ApplicationWindow) {
        guard let gtkWindow = window.gtkWindow,
              let surface = gtk_native_get_surface(OpaquePointer(gtkWindow)),
              gdk_surface_get_mapped(surface) == 0 else { return }
        let id = ObjectIdentifier(window)
        guard windowsAwaitingMap.insert(id).inserted else { return }
        var handler: gulong = 0
        var timer: guint = 0
        let raw = UnsafeMutableRawPointer(surface)
        g_object_ref(raw)
        let done: @MainActor () -> Void = { [weak self] in
            guard handler != 0 else { return }
            g_signal_handler_disconnect(raw, handler)
            handler = 0
            GLibSources.cancel(timer)
            g_object_unref(raw)
            self?.windowWasMapped(id)
        }
        handler = GObjectSignals.onNotify(raw, "mapped") {
            if gdk_surface_get_mapped(OpaquePointer(raw)) != 0 { done() }
        }
        timer = GLibSources.once(after: Self.mappingWait) { timer = 0; done() }
    }

    private func windowWasMapped(_ id: ObjectIdentifier) {
        windowsAwaitingMap.remove(id)
        guard windowsAwaitingMap.isEmpty, !deferredPresentations.isEmpty else { return }
        let next = deferredPresentations.removeFirst()
        present(next)
        // The rest wait for this one in turn.
        if windowsAwaitingMap.isEmpty, !deferredPresentations.isEmpty {
            windowWasMapped(ObjectIdentifier(next))
        }
    }
}
