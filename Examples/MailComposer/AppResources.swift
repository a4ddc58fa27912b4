import BatonGtk
import CGtk
import Foundation

/// Finds the app's resources (sample inbox, Info.plist, desktop entry): in the resource
/// bundle SwiftPM puts beside the executable, or `$MAILCOMPOSER_RESOURCES`.
enum AppResources {
    static let directory: URL? = {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["MAILCOMPOSER_RESOURCES"] {
            candidates.append(URL(fileURLWithPath: override, isDirectory: true))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let folder = executable.deletingLastPathComponent()
        candidates.append(folder.appendingPathComponent("Baton_MailComposer.resources/Resources", isDirectory: true))
        candidates.append(folder.appendingPathComponent("../share/MailComposer", isDirectory: true))
        return candidates.first { fileManager.fileExists(atPath: $0.appendingPathComponent("Info.plist").path) }
    }()

    /// Lets GTK find the app's own icons among its resources, so the About window and the
    /// window icon show them before the app is installed.
    @MainActor
    static func addIconsToTheme() {
        guard let icons = url("icons"), let display = gdk_display_get_default() else { return }
        gtk_icon_theme_add_search_path(gtk_icon_theme_get_for_display(display), icons.path)
    }

    static func url(_ name: String) -> URL? {
        directory?.appendingPathComponent(name)
    }

    /// What the app's Info.plist declares (activity types, team); empty when it cannot be
    /// read, which `MailApplication` reports as Handoff being off.
    static var bundleInfo: BundleInfo {
        guard let url = url("Info.plist"), let info = try? BundleInfo(contentsOf: url) else {
            return BundleInfo()
        }
        return info
    }
}
