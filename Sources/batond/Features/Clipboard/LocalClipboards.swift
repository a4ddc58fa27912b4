import Foundation
import Logging

/// Makes the session's ``LocalClipboard`` for the display batond runs on, or says why there
/// is none: then copies are neither announced nor pasted here (`baton doctor` says why).
@MainActor
enum LocalClipboards {
    /// The clipboard of the session `environment` describes (`DISPLAY`, `WAYLAND_DISPLAY`),
    /// with a line saying which is in use; `nil` and the reason when there is none.
    static func make(environment: [String: String], logger: Logger) -> (clipboard: (any LocalClipboard)?, status: String) {
        // The display servers' sides are plugged in here, X11's first (issue 36): for example
        // `if environment["DISPLAY"] != nil { return (X11Clipboard(…), "X11 (…)") }`.
        (nil, "no clipboard side for this display yet")
    }
}
