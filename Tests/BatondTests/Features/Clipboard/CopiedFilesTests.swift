@testable import batond
import BatonPeer
import Foundation
import XCTest

/// Which copied files this device offers, and what it reads of them for a paste: file lists as
/// file managers copy them, the folder rules and caps, and a file replaced since the copy.
final class CopiedFilesTests: XCTestCase {
    private var home: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("copied-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Pictures"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let home { try? FileManager.default.removeItem(at: home) }
    }

    private func file(_ path: String, _ bytes: [UInt8]) throws -> URL {
        let url = home.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url
    }

    func testFileListsAreReadAsFileManagersCopyThem() {
        let nautilus = Array("copy\nfile:///home/ana/Pictures/Beach%20photo.png\nfile:///home/ana/notes.txt".utf8)
        XCTAssertEqual(CopiedFiles.paths(inList: nautilus, type: "x-special/gnome-copied-files"),
                       ["/home/ana/Pictures/Beach photo.png", "/home/ana/notes.txt"])
        let dolphin = Array("file:///home/ana/a.txt\r\nfile://localhost/home/ana/b.txt\r\n".utf8)
        XCTAssertEqual(CopiedFiles.paths(inList: dolphin, type: "text/uri-list"), ["/home/ana/a.txt", "/home/ana/b.txt"])
        XCTAssertEqual(CopiedFiles.paths(inList: Array("# a comment\r\nfile:///x\r\n".utf8), type: "text/uri-list"), ["/x"])
        XCTAssertNil(CopiedFiles.paths(inList: Array("https://example.org/a.png\r\n".utf8), type: "text/uri-list"), "a link is no file")
        XCTAssertEqual(CopiedFiles.paths(inList: Array("file:///x\r\nhttps://example.org\r\n".utf8), type: "text/uri-list"), [],
                       "files beside links: nothing is offered, not even as links")
        XCTAssertEqual(CopiedFiles.paths(inList: Array("file://server/share/x\r\n".utf8), type: "text/uri-list"), [], "nor another host's file")
        XCTAssertNil(CopiedFiles.paths(inList: [], type: "text/uri-list"))
        XCTAssertThrowsError(try CopiedFiles(paths: [], home: "/home/ana"), "no file to offer")

        let urls = [URL(fileURLWithPath: "/home/bo/Documents/Continued from alpha/Beach photo.png"), URL(fileURLWithPath: "/home/bo/x.txt")]
        XCTAssertEqual(String(decoding: CopiedFiles.list(of: urls, as: "text/uri-list"), as: UTF8.self),
                       "file:///home/bo/Documents/Continued%20from%20alpha/Beach%20photo.png\r\nfile:///home/bo/x.txt\r\n")
        XCTAssertEqual(String(decoding: CopiedFiles.list(of: urls, as: "x-special/gnome-copied-files"), as: UTF8.self),
                       "copy\nfile:///home/bo/Documents/Continued%20from%20alpha/Beach%20photo.png\nfile:///home/bo/x.txt")
    }

    func testOnlyVisibleRegularFilesInTheHomeFolderWithinTheCapsAreOffered() throws {
        let photo = try file("Pictures/photo.png", [1, 2, 3])
        let sameName = try file("Other/photo.png", [4])
        let files = try CopiedFiles(paths: [photo.path, sameName.path], home: home.path)
        XCTAssertEqual(files.manifest.files, [.init(name: "photo.png", size: 3), .init(name: "photo (2).png", size: 1)], "names made unique")

        let hidden = try file(".ssh/id_ed25519", [9])
        let link = home.appendingPathComponent("link.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: photo)
        for (paths, reason) in [([hidden.path], "in a hidden folder"), (["/etc/hostname"], "outside the home folder"),
                                ([link.path], "a link"), ([home.appendingPathComponent("Pictures").path], "a folder"),
                                ([home.appendingPathComponent("gone.txt").path], "a file that is not there"),
                                (Array(repeating: photo.path, count: 65), "65 files")] {
            XCTAssertThrowsError(try CopiedFiles(paths: paths, home: home.path), reason) { error in
                XCTAssertFalse("\(error)".contains(self.home.path), "the reason names no file: \(error)")
            }
        }
    }

    func testAPasteReadsTheFileCopiedWindowByWindowAndNothingElse() throws {
        let bytes = (0..<((5 << 20) / 2)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let photo = try file("Pictures/photo.png", bytes)
        let files = try CopiedFiles(paths: [photo.path], home: home.path)
        var read: [UInt8] = []
        while read.count < bytes.count {
            let window = try files.window(of: 0, from: read.count)
            XCTAssertLessThanOrEqual(window.count, PeerClipboardOffer.maximumWindow)
            read += window
        }
        XCTAssertTrue(read == bytes)
        XCTAssertThrowsError(try files.window(of: 1, from: 0), "no such file")

        // Replaced by another file of the same name and size after the copy: not read.
        try FileManager.default.removeItem(at: photo)
        try Data(bytes).write(to: photo)
        XCTAssertThrowsError(try files.window(of: 0, from: 0), "another file now")
    }

    func testListsOfCopiedFilesFromAnotherDeviceKeepTheCaps() throws {
        let good = PeerClipboardFiles(files: [.init(name: "Beach photo.png", size: 3 << 20), .init(name: "notes.txt", size: 9)])
        XCTAssertEqual(try PeerClipboardFiles(bytes: good.bytes), good)
        for (files, reason) in [([PeerClipboardFiles.File(name: "../../.bashrc", size: 1)], "a path"),
                                ([.init(name: ".bashrc", size: 1)], "a hidden name"),
                                ([.init(name: "a", size: 1), .init(name: "a", size: 2)], "a name twice"),
                                ([.init(name: "big.iso", size: (64 << 20) + 1)], "a file over 64 MiB"),
                                ((0..<5).map { .init(name: "part\($0)", size: 60 << 20) }, "over 256 MiB in all"),
                                ([], "no file")] {
            XCTAssertThrowsError(try PeerClipboardFiles(bytes: PeerClipboardFiles(files: files).bytes), reason)
        }
        XCTAssertThrowsError(try PeerClipboardFiles(bytes: [1, 2, 3]), "not a list")
        XCTAssertEqual(PeerClipboardFiles.fileIndex(of: PeerClipboardFiles.fileType(3)), 3)
        XCTAssertNil(PeerClipboardFiles.fileIndex(of: "application/x-baton-file;index=03"))
        XCTAssertNil(PeerClipboardFiles.fileIndex(of: "application/x-baton-file;index=64"))
    }
}
