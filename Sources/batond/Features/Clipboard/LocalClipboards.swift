import Foundation
import Logging

/// Makes the session's ``LocalClipboard`` for the display batond runs on, or says why there
/// is none: then copies are neither announced nor pasted here (`baton doctor` says why).
@MainActor
enum LocalClipboards {
    /// The clipboard of the session `environment` describes, with a line saying which is in
    /// use: X11's (`DISPLAY`, outside a Wayland session), or the Wayland compositor's through
    /// its data-control protocol (`WAYLAND_DISPLAY`; sway, KDE Plasma); `nil` and the reason
    /// when there is none (GNOME's Wayland session offers none to programs in the background).
    static func make(environment: [String: String], logger: Logger) -> (clipboard: (any LocalClipboard)?, status: String) {
        if let display = ActiveWindowWatcher.displayToWatch(in: environment) {
            do {
                return (try X11Clipboard(display: display, logger: logger), "the X11 clipboard of display \(display)")
            } catch {
                return (nil, "\(error)")
            }
        }
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            do {
                return (try WaylandClipboard(display: wayland, logger: logger),
                        "the Wayland clipboard of \(wayland), through the compositor's data-control protocol")
            } catch {
                guard (environment["XDG_CURRENT_DESKTOP"] ?? "").uppercased().contains("GNOME") else { return (nil, "\(error)") }
                return (nil, "GNOME's Wayland session lets no program in the background use the clipboard (its compositor offers no data-control protocol)")
            }
        }
        if environment["XDG_SESSION_TYPE"] == "wayland" {
            return (nil, "this Wayland session names no WAYLAND_DISPLAY")
        }
        return (nil, "there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)")
    }
}
