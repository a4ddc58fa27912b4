import Baton
import BatonGtk
import CGtk
import Foundation
import XCTest

/// The GTK app's document controller: types from Info.plist, files typed by their contents,
/// and the desktop's recent files.
@MainActor
final class DesktopDocumentControllerTests: GtkTestCase {
    private var folder: URL!

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("documents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: folder)
        try await super.tearDown()
    }

    private let info = BundleInfo(documentTypes: [
        DocumentType(name: "Markdown", fileExtensions: ["md"], mimeTypes: ["text/markdown"],
                     activityType: "org.example.texteditor.editing"),
        DocumentType(name: "Plain text", fileExtensions: ["txt"], mimeTypes: ["text/plain"],
                     activityType: "org.example.texteditor.editing"),
    ])

    private func file(_ name: String, _ text: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func testFilesAreTypedByContentsAndNotedAsRecent() async throws {
        try setUpApplication()
        let recent = baton_recent_manager_new_with_file(folder.appendingPathComponent("recent.xbel").path)!
        defer { g_object_unref(UnsafeMutableRawPointer(recent)) }
        var opened: [String] = []
        let controller = DesktopDocumentController(bundleInfo: info, application: application, recentManager: recent) { url, type in
            opened.append("\(url.lastPathComponent) as \(type.name)")
            return Document(fileURL: url)
        }
        let readme = try file("README", "Plain words, no extension.\n")
        let report = try file("report.md", "# Report\n")
        let picture = try file("picture.png", "not text")

        XCTAssertEqual(controller.documentType(for: readme)?.name, "Plain text", "typed by its contents")
        XCTAssertNil(controller.documentType(for: picture))
        let document = try controller.openDocument(withContentsOf: readme)
        try controller.openDocument(withContentsOf: report)
        XCTAssertThrowsError(try controller.openDocument(withContentsOf: picture))
        XCTAssertEqual(opened, ["README as Plain text", "report.md as Markdown"])
        XCTAssertEqual(document.userActivity?.activityType, "org.example.texteditor.editing")

        XCTAssertTrue(spin(until: { Set(controller.recentDocumentURLs.map(\.lastPathComponent)) == ["README", "report.md"] }),
                      "both in the recent files: \(controller.recentDocumentURLs)")
        try FileManager.default.removeItem(at: report)
        XCTAssertEqual(controller.recentDocumentURLs.map(\.lastPathComponent), ["README"], "a file gone is left out")
    }
}
