import Foundation

/// Whether the tests have a display (`DISPLAY`, as `xvfb-run` sets it) for GTK windows.
public var hasDisplay: Bool {
    !(ProcessInfo.processInfo.environment["DISPLAY"] ?? "").isEmpty
}
