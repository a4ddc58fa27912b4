import Foundation
import ServiceFixtures

extension ServiceSession {
    /// Gives batond (and what the session starts) a home of its own, with a `Docs` folder,
    /// and no display, so batond chooses a recent document by recency alone.
    func useOwnHomeWithoutDisplay() throws {
        let home = root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Docs"), withIntermediateDirectories: true)
        environmentOverrides["HOME"] = home.path
        environmentOverrides["DISPLAY"] = ""
        environmentOverrides["WAYLAND_DISPLAY"] = ""
    }
}
