import Baton
import BatonGLib
import Foundation
import Logging
import ServiceFixtures
import XCTest

@testable import batond

/// What a paired device's recent document can never do here: be opened as a program or by an
/// app its payload names outside the apps listed for the file's own type; and what the origin
/// never sends: a file outside its home reached through a linked folder, or one swapped in
/// after the check.
@MainActor
final class RecentDocumentSafetyTests: XCTestCase {
    private var folder: URL!

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("recent-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("home/Docs"), withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testProgramsScriptsAndDesktopEntriesAreNeverOpened() async {
        for type in ["application/x-executable", "application/x-shellscript", "application/x-desktop", "text/x-python",
                     "application/x-java-archive", "application/x-ms-dos-executable", "application/vnd.debian.binary-package"] {
            XCTAssertFalse(DocumentOpener.mayOpen(type), type)
        }
        for type in ["text/plain", "application/pdf", "text/markdown", "image/png"] {
            XCTAssertTrue(DocumentOpener.mayOpen(type), type)
        }
    }

    func testThePayloadsProgramChoosesOnlyAmongTheAppsOfTheFilesOwnType() async throws {
        let script = folder.appendingPathComponent("home/Docs/notes.txt")
        try "#!/bin/sh\necho hello\n".write(to: script, atomically: true, encoding: .utf8)
        let chosen = DocumentOpener.app(for: script, program: "python3.11")
        XCTAssertNotEqual(chosen?.id, "python3.11.desktop", "an interpreter named by the other device is not used")
        let shell = folder.appendingPathComponent("home/Docs/run.sh")
        try "#!/bin/sh\necho hello\n".write(to: shell, atomically: true, encoding: .utf8)
        XCTAssertNil(DocumentOpener.app(for: shell, program: "gedit"), "a shell script is never opened, whatever app is named")
        let entry = folder.appendingPathComponent("home/Docs/evil.desktop")
        try "[Desktop Entry]\nType=Application\nName=Evil\nExec=sh -c true\n".write(to: entry, atomically: true, encoding: .utf8)
        XCTAssertNil(DocumentOpener.app(for: entry, program: "gedit"), "a desktop entry is never opened")
        if FileManager.default.fileExists(atPath: "/usr/share/applications/org.gnome.gedit.desktop") {
            let text = folder.appendingPathComponent("home/Docs/plain.txt")
            try "lunch at noon\n".write(to: text, atomically: true, encoding: .utf8)
            XCTAssertEqual(DocumentOpener.app(for: text, program: "gedit")?.id, "org.gnome.gedit.desktop")
        }
    }

    func testTheOriginSendsNothingOutsideHomeNorWhatWasSwappedIn() async throws {
        let home = folder.appendingPathComponent("home")
        let outside = folder.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try "secret\n".write(to: outside.appendingPathComponent("keys.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: home.appendingPathComponent("Docs/linked"), withDestinationURL: outside)
        let documents = SharedDocuments(logger: Logger(label: "test"))
        let throughLink = home.appendingPathComponent("Docs/linked/keys.txt")
        let described = await documents.describeRecent(throughLink, activityID: "a1", to: "device", home: home)
        XCTAssertEqual(described, .withheld(.outsideHome), "a file reached through a linked folder outside home is not sent")

        let plain = home.appendingPathComponent("Docs/plain.txt")
        try "lunch at noon\n".write(to: plain, atomically: true, encoding: .utf8)
        let kept = await documents.describeRecent(plain, activityID: "a2", to: "device", home: home)
        XCTAssertEqual(kept.document?.size, 14, "a file of home is described")
        // Swapped for a link after the description: the stream still sends the file described.
        try FileManager.default.removeItem(at: plain)
        try FileManager.default.createSymbolicLink(at: plain, withDestinationURL: outside.appendingPathComponent("keys.txt"))
        let end = try documents.stream(of: "a2", to: "device", name: "device")
        let stream = SocketContinuationStream(taking: try XCTUnwrap(end.take()))
        defer { stream.close() }
        let bytes = try await Outcome { () async throws -> [UInt8] in
            var received: [UInt8] = []
            while true {
                let chunk = try await stream.read(maximumCount: 1 << 16)
                if chunk.isEmpty { return received }
                received += chunk
            }
        }.get()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "lunch at noon\n", "the file described, not the one swapped in")
    }
}
