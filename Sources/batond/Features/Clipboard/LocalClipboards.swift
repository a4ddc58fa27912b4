import Foundation
import Logging

/// Makes the session's ``LocalClipboard`` for the display batond runs on, or says why there
/// is none: then copies are neither announced nor pasted here (`baton doctor` says why).
@MainActor
enum LocalClipboards {
    /// The clipboard of the session `environment` describes (`DISPLAY`, `WAYLAND_DISPLAY`),
    /// with a line saying which is in use; `nil` and the reason when there is none.
    static func make(environment: [String: String], logger: Logger) -> (clipboard: (any LocalClipboard)?, status: String) {
        if let display = ActiveWindowWatcher.displayToWatch(in: environment) {
            do {
                return (try X11Clipboard(display: display, logger: logger), "the X11 clipboard of display \(display)")
            } catch {
                return (nil, "\(error)")
            }
        }
        if environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true || environment["XDG_SESSION_TYPE"] == "wayland" {
            return (nil, "this Wayland session's clipboard cannot be used by batond yet")
        }
        return (nil, "there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)")
    }
}
