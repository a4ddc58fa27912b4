import Foundation
import ServiceFixtures
import XCTest

/// A document only on device A, and no Syncthing: the bytes come over the link into
/// "Continued from alpha" under B's documents folder, the document opens from there with a
/// note, and nothing on B is overwritten by a second continuation.
final class TextEditorCopiedDocumentTests: DocumentHandoffTestCase {
    func testADocumentOnlyOnTheOriginIsCopiedByteForByteAndNeverOverwritesOne() async throws {
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: folderOnlyOnA)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("Ünïcödé, tabs\tand “quotes”.\n".utf8))
        try handle.close()
        let documentsB = try makeDocumentsFolderOnB()
        let (_, onB, onAlpha) = try openOnA(file)

        let copy = documentsB.appendingPathComponent("Continued from alpha/report.md")
        let restored = try continueOnB(onB, expecting: copy)
        XCTAssertEqual(restored.userInfo?["BatonDocumentCopiedFrom"] as? String, "alpha", "the app hears it is a copy")
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file), "the copy is byte for byte the file on A")
        let mode = try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the copy is private to the person")
        XCTAssertTrue(showsPosition(onAlpha, of: copy, on: onB),
                      "B's window shows the copy at A's lines: \(onAlpha) on A, \(String(describing: onB.lastPosition())) on B")
        try screenshotB("texteditor-copy-device-b")

        // The person edits the copy on B; continuing A's document again makes a second copy.
        try "edited on beta\n".write(to: copy, atomically: true, encoding: .utf8)
        if let pid = onB.pid { kill(pid, SIGTERM) }
        XCTAssertTrue(waitUntil { onB.pid.map { kill($0, 0) != 0 } ?? true }, "B's editor quit")
        try continueOnB(onB, expecting: documentsB.appendingPathComponent("Continued from alpha/report (2).md"))
        XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), "edited on beta\n", "the first copy is untouched")
        XCTAssertFalse(devices.batondA.log.contains("Line 17 of the report"), "A's log holds no document text")
        XCTAssertFalse(devices.batondB.log.contains("Line 17 of the report"), "B's log holds no document text")
    }

    /// "Continued from alpha" planted as a link to another folder (one of the person's, where
    /// a copy would do harm): the copy is not written through it, and the person is told why.
    func testACopiesFolderPlantedAsALinkFailsTheContinuationAndWritesNothingThrough() async throws {
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: folderOnlyOnA)
        let documentsB = try makeDocumentsFolderOnB()
        let elsewhere = devices.b.root.appendingPathComponent("config/autostart", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: documentsB.appendingPathComponent("Continued from alpha"),
                                                   withDestinationURL: elsewhere)
        let (_, onB, _) = try openOnA(file, pages: 1)
        let command = try startContinuingOnB()
        XCTAssertNotEqual(command.waitForExit(timeout: 20), 0, "the continuation failed: \(command.log)")
        XCTAssertTrue(command.log.contains("it is a link or a file, not a folder"), command.log)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [], "nothing was written through the link")
        XCTAssertTrue(try onB.windows(titled: "report.md", timeout: 2).isEmpty, "B's editor opened nothing")
    }
}

/// B runs with `HOME` set to a folder of its own and no documents folder named in its
/// `user-dirs.dirs`: the copy of A's document goes under that `HOME` (as GLib and every GTK
/// app see the home folder), never into the home the password database names.
final class TextEditorCopiedDocumentHomeTests: DocumentHandoffTestCase {
    static let homeOfB = FileManager.default.temporaryDirectory.appendingPathComponent("baton-home-\(UUID().uuidString)")

    override class var environmentB: [String: String] { ["HOME": homeOfB.path] }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: Self.homeOfB)
    }

    func testTheCopyGoesUnderTheHomeBRunsWith() async throws {
        try FileManager.default.createDirectory(at: Self.homeOfB, withIntermediateDirectories: true)
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: folderOnlyOnA, name: "home-check.md")
        let databaseHome = URL(fileURLWithPath: String(cString: getpwuid(getuid()).pointee.pw_dir))
        let elsewhere = databaseHome.appendingPathComponent("Documents/Continued from alpha/home-check.md")
        let existedBefore = FileManager.default.fileExists(atPath: elsewhere.path)
        let (_, onB, _) = try openOnA(file)

        let copy = Self.homeOfB.appendingPathComponent("Documents/Continued from alpha/home-check.md")
        try continueOnB(onB, expecting: copy)
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file), "the copy under B's HOME is the file on A")
        if !existedBefore {
            XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.path), "nothing was written into \(databaseHome.path)")
        }
    }
}
