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
            opened.append("\(url?.lastPathComponent ?? "untitled") as \(type.name)")
            return Document(fileURL: url)
        }
        let readme = try file("notes", "Plain words, no extension.\n")
        let report = try file("report.md", "# Report\n")
        let picture = try file("picture.png", "not text")

        XCTAssertEqual(controller.documentType(for: readme)?.name, "Plain text", "typed by its contents")
        let fifo = folder.appendingPathComponent("pipe.txt")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let started = Date()
        XCTAssertThrowsError(try controller.openDocument(withContentsOf: fifo), "a FIFO is not a document") {
            XCTAssertEqual($0 as? DocumentError, .notAFile(fifo))
        }
        XCTAssertNil(controller.documentType(for: folder.appendingPathComponent("pipe")))
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "at once, not blocked reading it")
        XCTAssertNil(controller.documentType(for: picture))
        let document = try controller.openDocument(withContentsOf: readme)
        try controller.openDocument(withContentsOf: report)
        XCTAssertThrowsError(try controller.openDocument(withContentsOf: picture))
        XCTAssertEqual(opened, ["notes as Plain text", "report.md as Markdown"])
        XCTAssertEqual(document.userActivity?.activityType, "org.example.texteditor.editing")

        // Another app's recent file of the same type is not this app's.
        let other = try file("other.md", "# Other\n")
        DesktopDocumentController.addRecent(other, mimeType: "text/markdown", appName: "org.example.Other",
                                            command: "other %u", to: recent)
        XCTAssertTrue(spin(until: { gtk_recent_manager_has_item(recent, other.absoluteString) != 0 }))
        XCTAssertTrue(spin(until: { Set(controller.recentDocumentURLs.map(\.lastPathComponent)) == ["notes", "report.md"] }),
                      "both in the recent files, and only they: \(controller.recentDocumentURLs)")
        try FileManager.default.removeItem(at: report)
        XCTAssertEqual(controller.recentDocumentURLs.map(\.lastPathComponent), ["notes"], "a file gone is left out")
    }
}
