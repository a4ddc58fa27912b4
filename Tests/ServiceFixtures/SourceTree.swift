import Foundation

/// The project's source tree, found from this file whatever folder a test file sits in: the
/// nearest folder above that holds `Package.swift`.
public enum SourceTree {
    /// The source tree's root.
    public static let root: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { return folder }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `relative` inside the source tree.
    public static func path(_ relative: String) -> URL {
        root.appendingPathComponent(relative)
    }
}
