import BatonGLib
import CAdwaita
import CGtk

/// The one toast the Baton app shows at a time, over an `AdwToastOverlay`: a new one
/// replaces the one before.
///
/// libadwaita 1.2 (Debian 12's) frees a toast that is dismissed during its show animation
/// before that animation ends, then touches it when the animation does: the app crashed when
/// "Continuing…" gave way to "Continued" within a few milliseconds. So a toast is taken down
/// only once it has been on screen for ``settleTime``; a change asked for sooner waits for
/// that moment, and only the latest change asked for is made.
@MainActor
final class ToastSlot {
    /// Longer than libadwaita's longest show animation (500 ms, when a toast replaces another).
    static let settleTime = 0.6

    private let overlay: Rows.Widget
    /// The toast on screen, if any, with a reference of our own.
    private var toast: OpaquePointer?
    /// When ``toast`` was shown, in GLib's monotonic microseconds.
    private var shownAt: gint64 = 0
    private var waiting: guint = 0
    private var change: (() -> Void)?

    init(overlay: Rows.Widget) {
        self.overlay = overlay
    }

    /// Shows `text` in place of the toast shown before; with `button`, a button that runs the
    /// app action it names, and the toast stays until it is replaced or dismissed.
    func show(_ text: String, button: (label: String, action: String)? = nil) {
        whenSettled { [weak self] in
            self?.takeDown()
            self?.add(text, button: button)
        }
    }

    /// Takes down the toast on screen, if any.
    func dismiss() {
        whenSettled { [weak self] in self?.takeDown() }
    }

    private func whenSettled(_ body: @escaping () -> Void) {
        let shownFor = Double(g_get_monotonic_time() - shownAt) / 1_000_000
        guard toast != nil, shownFor < Self.settleTime else {
            GLibSources.cancel(waiting)
            waiting = 0
            change = nil
            body()
            return
        }
        change = body
        guard waiting == 0 else { return }
        waiting = GLibSources.once(after: Self.settleTime - shownFor) { [weak self] in
            guard let self else { return }
            waiting = 0
            let latest = change
            change = nil
            latest?()
        }
    }

    private func takeDown() {
        guard let toast else { return }
        adw_toast_dismiss(toast)
        g_object_unref(UnsafeMutableRawPointer(toast))
        self.toast = nil
    }

    private func add(_ text: String, button: (label: String, action: String)?) {
        let new = adw_toast_new(Rows.escaped(text))
        if let button {
            adw_toast_set_button_label(new, button.label)
            adw_toast_set_action_name(new, button.action)
            adw_toast_set_timeout(new, 0)
        }
        g_object_ref(UnsafeMutableRawPointer(new))
        toast = new
        shownAt = g_get_monotonic_time()
        adw_toast_overlay_add_toast(baton_adw_toast_overlay(overlay), new)
    }
}
