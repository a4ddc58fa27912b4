@testable import batond
import Foundation
import XCTest

/// "Continued from ‹device›", where copies of other devices' documents are saved: never
/// through a link planted in its place, and named within a file name's 255 bytes whatever the
/// device and document are called.
final class CopiesFolderTests: XCTestCase {
    private var documents: URL!

    override func setUpWithError() throws {
        documents = FileManager.default.temporaryDirectory.appendingPathComponent("copies-\(UUID().uuidString)/Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: documents.deletingLastPathComponent())
    }

    /// Saves `text` as `name` in the copies folder of `device`, as a continuation does.
    private func saveCopy(_ text: String, as name: String, from device: String) throws -> URL {
        let folder = try CopiesFolder(from: device, in: documents)
        let (partial, descriptor) = try folder.createPartial()
        defer {
            close(descriptor)
            folder.remove(partial)
        }
        XCTAssertEqual(text.utf8.count, Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) })
        return try folder.link(partial, as: name)
    }

    func testACopiesFolderPlantedAsALinkIsNotFollowed() throws {
        let elsewhere = documents.deletingLastPathComponent().appendingPathComponent("ssh", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: documents.appendingPathComponent("Continued from alpha"),
                                                   withDestinationURL: elsewhere)
        XCTAssertThrowsError(try saveCopy("planted", as: "authorized_keys", from: "alpha")) { error in
            XCTAssertTrue("\(error)".contains("it is a link or a file, not a folder"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [], "nothing was written where it points")
    }

    func testAFileInTheCopiesFolderIsNeverReplacedAndAPlantedLinkIsNotWrittenThrough() throws {
        let target = documents.deletingLastPathComponent().appendingPathComponent("bashrc")
        try "the person's own\n".write(to: target, atomically: true, encoding: .utf8)
        let folder = documents.appendingPathComponent("Continued from alpha", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("notes.txt"), withDestinationURL: target)
        let copy = try saveCopy("from alpha\n", as: "notes.txt", from: "alpha")
        XCTAssertEqual(copy.lastPathComponent, "notes (2).txt")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "the person's own\n")
        XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), "from alpha\n")
    }

    func testADeviceNameOfUpTo255BytesMakesAFolderWhoseNameFits() throws {
        for length in [240, 241, 250, 255] {
            let device = String(repeating: "é", count: length / 2) + (length % 2 == 1 ? "x" : "")
            let name = CopiesFolder.folderName(from: device)
            XCTAssertLessThanOrEqual(name.utf8.count, 255, "a \(device.utf8.count)-byte device name")
            XCTAssertTrue(name.hasPrefix("Continued from éé"))
            let copy = try saveCopy("text\n", as: "notes.txt", from: device)
            XCTAssertEqual(copy.deletingLastPathComponent().lastPathComponent, name)
        }
    }

    func testAFolderNameHoldsNoSlashNoLeadingDotAndNoHiddenCharacters() {
        XCTAssertEqual(CopiesFolder.folderName(from: "../../.ssh"), "Continued from -..-.ssh")
        XCTAssertEqual(CopiesFolder.folderName(from: "Evil\u{202E}txt.exe"), "Continued from Eviltxt.exe")
        XCTAssertEqual(CopiesFolder.folderName(from: "..."), "Continued from another device")
    }

    func testALongDocumentNameStillGetsASecondCopy() throws {
        let name = String(repeating: "n", count: 251) + ".txt"
        let first = try saveCopy("one\n", as: name, from: "alpha")
        let second = try saveCopy("two\n", as: name, from: "alpha")
        XCTAssertEqual(first.lastPathComponent, name)
        XCTAssertLessThanOrEqual(second.lastPathComponent.utf8.count, 255)
        XCTAssertTrue(second.lastPathComponent.hasSuffix(" (2).txt"), second.lastPathComponent)
        XCTAssertEqual(try String(contentsOf: first, encoding: .utf8), "one\n")
    }
}
