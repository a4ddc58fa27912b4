@testable import batond
import BatonPeer
import Foundation
import XCTest

/// batond's files in its config folder: a planted link is refused, and a broken file is an
/// error naming the file and what is wrong, not an identity error.
@MainActor
final class ConfigFileTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("baton-config-\(UUID())")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("baton")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func permissions(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testASymlinkedPairedDevicesFileIsRefusedAndItsTargetKeepsItsMode() async throws {
        let directory = try temporaryDirectory()
        let target = directory.deletingLastPathComponent().appendingPathComponent("elsewhere.json")
        try Data("[]".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        let file = directory.appendingPathComponent(PairedDevices.fileName)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        XCTAssertThrowsError(try PairedDevices(directory: directory)) { error in
            XCTAssertTrue("\(error)".contains(file.path) && "\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertEqual(try permissions(target), 0o644, "the link's target keeps its mode")
    }

    func testABrokenPairedDevicesFileIsAConfigErrorNamingTheFile() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent(PairedDevices.fileName)
        try Data("[{\"id\": \"abc\"}]".utf8).write(to: file)
        XCTAssertThrowsError(try PairedDevices(directory: directory)) { error in
            XCTAssertFalse(error is IdentityError, "a broken list of paired devices is not an identity error")
            XCTAssertTrue("\(error)".contains(file.path), "\(error)")
            XCTAssertTrue("\(error)".contains("not a list of paired devices: \"0.name\" is missing"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "[{\"id\": \"abc\"}]", "left as it is")
    }

    func testABadSettingIsAnErrorNamingTheFileAndTheKey() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent(NetworkSettings.fileName)
        let options = try BatondOptions.parse([])
        try "[network]\nlisten=nowhere\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try NetworkSettings(options: options, directory: directory)) { error in
            XCTAssertTrue("\(error)".contains(file.path) && "\(error)".contains("listen: \"nowhere\""), "\(error)")
        }
        try "[network]\nname=bad\u{202E}name\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try NetworkSettings(options: options, directory: directory)) { error in
            XCTAssertTrue("\(error)".contains(file.path) && "\(error)".contains("name must be"), "\(error)")
        }
        try "not a key file\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try NetworkSettings(options: options, directory: directory)) { error in
            XCTAssertTrue("\(error)".contains(file.path) && "\(error)".contains("not a key file"), "\(error)")
        }
    }
}
