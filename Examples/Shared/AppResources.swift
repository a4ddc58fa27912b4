import BatonGtk
import CGtk
import Foundation

/// Finds an example app's resources (Info.plist, desktop entry, icons, samples): in the
/// resource bundle SwiftPM puts beside the executable, in `../share/<program>` once
/// installed, or in the folder an environment variable names (for tests).
public struct AppResources: Sendable {
    /// The folder that holds the app's Info.plist, if one was found.
    public let directory: URL?

    /// Looks for the resources of the executable target `target` (SwiftPM's bundle is
    /// `Baton_<target>.resources`), first in `$<environmentVariable>` when it is set.
    public init(target: String, environmentVariable: String) {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment[environmentVariable] {
            candidates.append(URL(fileURLWithPath: override, isDirectory: true))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let folder = executable.deletingLastPathComponent()
        candidates.append(folder.appendingPathComponent("Baton_\(target).resources/Resources", isDirectory: true))
        candidates.append(folder.appendingPathComponent("../share/\(target)", isDirectory: true))
        directory = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Info.plist").path) }
    }

    /// Lets GTK find the app's own icons among its resources, so the About window and the
    /// window icon show them before the app is installed.
    @MainActor
    public func addIconsToTheme() {
        guard let icons = url("icons"), let display = gdk_display_get_default() else { return }
        gtk_icon_theme_add_search_path(gtk_icon_theme_get_for_display(display), icons.path)
    }

    public func url(_ name: String) -> URL? {
        directory?.appendingPathComponent(name)
    }

    /// What the app's Info.plist declares (activity types, team, document types), or why it
    /// cannot be read.
    public func bundleInfo() throws -> BundleInfo {
        guard let url = url("Info.plist") else {
            throw BundleInfoError(file: "Info.plist", reason: "was not found: no resources folder beside \(CommandLine.arguments[0])")
        }
        return try BundleInfo(contentsOf: url)
    }
}
