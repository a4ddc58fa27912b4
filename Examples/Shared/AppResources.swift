import BatonGLib
import BatonGtk
import CGtk
import Foundation

/// Finds an example app's resources (Info.plist, desktop entry, icons, samples): in the
/// resource bundle SwiftPM puts beside the executable, in `../share/<program>` once
/// installed, in `<program>` under the system's data folders, or in the folder an environment
/// variable names (for tests). The executable is the one the process really runs
/// (`/proc/self/exe`), however it was started: by a path, or by its bare name through `PATH`.
public struct AppResources: Sendable {
    /// The folder that holds the app's Info.plist, if one was found.
    public let directory: URL?
    /// The folders looked in, in order, for the message when none holds it.
    public let searched: [URL]

    /// Looks for the resources of the executable target `target` (SwiftPM's bundle is
    /// `Baton_<target>.resources`), first in `$<environmentVariable>` when it is set.
    public init(target: String, environmentVariable: String) {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment[environmentVariable] {
            candidates.append(URL(fileURLWithPath: override, isDirectory: true))
        }
        let folder = URL(fileURLWithPath: Self.executablePath, isDirectory: false).deletingLastPathComponent()
        candidates.append(folder.appendingPathComponent("Baton_\(target).resources/Resources", isDirectory: true))
        candidates.append(folder.appendingPathComponent("../share/\(target)", isDirectory: true).standardizedFileURL)
        candidates += ([XDGDirectories.dataHome] + XDGDirectories.dataDirectories).map {
            $0.appendingPathComponent(target, isDirectory: true)
        }
        searched = candidates
        directory = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Info.plist").path) }
    }

    /// The program this process runs, links resolved: `/proc/self/exe`, or where `argv[0]`
    /// leads (through `PATH` when it is a bare name) where `/proc` is not mounted.
    static var executablePath: String {
        if let path = ProcessExecutable.path(of: getpid()) { return path }
        let name = CommandLine.arguments.first ?? ""
        let located = name.contains("/") ? name
            : ProcessExecutable.locate(name, searchPath: ProcessInfo.processInfo.environment["PATH"]) ?? name
        return ProcessExecutable.canonical(URL(fileURLWithPath: located).path)
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
            let places = searched.map(\.path).joined(separator: ", ")
            throw BundleInfoError(file: "Info.plist", reason: "was not found: the app's resources are in none of \(places)")
        }
        return try BundleInfo(contentsOf: url)
    }
}
