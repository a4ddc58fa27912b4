@testable import batond
import BatonPeer
import Foundation
import XCTest

/// batond's files in its config folder, and the machine's `batond.conf` read before the
/// user's: a planted link is refused, and a broken file is an error naming the file and what
/// is wrong, not an identity error.
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

    /// A relay address with a valid id, on `host`.
    private static func relay(_ host: String) -> String {
        "relay://\(host):22067/?id=OOAYO63-YDKIQGI-B5YC7JV-4RADKSP-5ZVDZUN-V6BWMXW-ARB5GKE-EEQ4BQI"
    }

    /// A user's config folder and a machine-wide file beside it (written when `machine` is
    /// given), with the options that point batond at that file.
    private func folders(machine: String?, user: String?, options: [String] = [])
        throws -> (directory: URL, machineFile: URL, options: BatondOptions) {
        let directory = try temporaryDirectory()
        let machineFile = directory.deletingLastPathComponent().appendingPathComponent("etc-batond.conf")
        try machine?.write(to: machineFile, atomically: true, encoding: .utf8)
        try user?.write(to: directory.appendingPathComponent(NetworkSettings.fileName), atomically: true, encoding: .utf8)
        return (directory, machineFile, try BatondOptions.parse(["--machine-config", machineFile.path] + options))
    }

    func testTheMachineFileIsInEtcUnlessAnOptionSaysOtherwise() async throws {
        XCTAssertEqual(try BatondOptions.parse([]).machineConfigFile.path, "/etc/baton/batond.conf")
        XCTAssertEqual(try BatondOptions.parse(["--machine-config", "/tmp/x.conf"]).machineConfigFile.path, "/tmp/x.conf")
    }

    /// A lab desk's machine file: every key set.
    static let labDesk = """
        [network]
        name=Lab desk 4
        listen=0.0.0.0:48200
        peers=printer-desk:48100;10.1.0.9:48100
        relays=\(relay("relay.office.example"))

        """

    func testTheMachineFileAloneGivesItsSettings() async throws {
        let (directory, _, options) = try folders(machine: Self.labDesk, user: nil)
        let settings = try NetworkSettings(options: options, directory: directory)
        XCTAssertEqual(settings.name, "Lab desk 4")
        XCTAssertFalse(settings.isNameFixed)
        XCTAssertEqual(settings.host, "0.0.0.0")
        XCTAssertEqual(settings.port, 48200)
        XCTAssertFalse(settings.isListenChosen, "the machine's port is every user's: a taken one falls back to a free one")
        XCTAssertEqual(settings.peers, ["10.1.0.9:48100", "printer-desk:48100"])
        XCTAssertEqual(settings.relays.map(\.host), ["relay.office.example"])
    }

    func testAKeyInTheUsersFileReplacesTheMachinesAndTheOthersAreKept() async throws {
        let (directory, _, options) = try folders(machine: Self.labDesk, user: "[network]\npeers=laptop:48100\nrelays=\n")
        let settings = try NetworkSettings(options: options, directory: directory)
        XCTAssertEqual(settings.peers, ["laptop:48100"], "the user's peers replace the machine's")
        XCTAssertEqual(settings.relays, [], "an empty relays= in the user's file empties the machine's list")
        XCTAssertEqual(settings.name, "Lab desk 4", "a key the user's file does not give is the machine's")
        XCTAssertEqual(settings.port, 48200, "a key the user's file does not give is the machine's")
        XCTAssertFalse(settings.isListenChosen)

        try "[network]\nname=My laptop\nlisten=[::]:0\nrelays=\(Self.relay("relay.home.example"))\n"
            .write(to: directory.appendingPathComponent(NetworkSettings.fileName), atomically: true, encoding: .utf8)
        let replaced = try NetworkSettings(options: options, directory: directory)
        XCTAssertEqual(replaced.name, "My laptop")
        XCTAssertEqual(replaced.host, "::")
        XCTAssertEqual(replaced.port, 0)
        XCTAssertTrue(replaced.isListenChosen, "the person's own listen= is theirs: a taken port is an error")
        XCTAssertEqual(replaced.relays.map(\.host), ["relay.home.example"])
        XCTAssertEqual(replaced.peers, ["10.1.0.9:48100", "printer-desk:48100"])
    }

    func testTheCommandLineAndTheChosenNameStillWinOverBothFiles() async throws {
        let (directory, _, options) = try folders(
            machine: "[network]\nname=Lab desk 4\nlisten=0.0.0.0:48200\npeers=printer-desk:48100\nrelays=\(Self.relay("relay.office.example"))\n",
            user: "[network]\nlisten=0.0.0.0:48300\n",
            options: ["--name", "fixed", "--listen", "127.0.0.1:48400", "--peer", "other:1",
                      "--relay", Self.relay("relay.own.example")])
        let settings = try NetworkSettings(options: options, directory: directory, chosenName: "chosen")
        XCTAssertEqual(settings.name, "fixed")
        XCTAssertTrue(settings.isNameFixed)
        XCTAssertEqual(settings.host, "127.0.0.1")
        XCTAssertEqual(settings.port, 48400)
        XCTAssertEqual(settings.peers, ["other:1", "printer-desk:48100"], "peers from the command line and the files are dialed")
        XCTAssertEqual(settings.relays.map(\.host), ["relay.own.example", "relay.office.example"])

        let chosen = try NetworkSettings(options: try BatondOptions.parse(["--machine-config", options.machineConfig]),
                                         directory: directory, chosenName: "chosen")
        XCTAssertEqual(chosen.name, "chosen", "the name the person chose wins over the machine's name=")
        XCTAssertEqual(chosen.port, 48300, "the user's listen= wins over the machine's")
    }

    func testABadMachineFileIsAnErrorNamingItAndTheKey() async throws {
        let (directory, machineFile, options) = try folders(machine: "[network]\nlisten=nowhere\n", user: "[network]\nname=desk\n")
        func expectError(_ words: String, in file: URL, _ line: UInt = #line) {
            XCTAssertThrowsError(try NetworkSettings(options: options, directory: directory), line: line) { error in
                XCTAssertTrue(error is ConfigError, "\(error)", line: line)
                XCTAssertTrue("\(error)".hasPrefix(file.path + ": ") && "\(error)".contains(words), "\(error)", line: line)
            }
        }
        expectError("listen: \"nowhere\"", in: machineFile)
        try "[network]\npeers=desk:1;nowhere\n".write(to: machineFile, atomically: true, encoding: .utf8)
        expectError("peers: \"nowhere\" is not HOST:PORT", in: machineFile)
        try "[network]\nname=bad\u{202E}name\n".write(to: machineFile, atomically: true, encoding: .utf8)
        try "[network]\nlisten=0.0.0.0:1\n".write(to: directory.appendingPathComponent(NetworkSettings.fileName),
                                                  atomically: true, encoding: .utf8)
        expectError("name must be", in: machineFile)
        try "not a key file\n".write(to: machineFile, atomically: true, encoding: .utf8)
        expectError("not a key file", in: machineFile)
        try FileManager.default.removeItem(at: machineFile)
        try FileManager.default.createDirectory(at: machineFile, withIntermediateDirectories: false)
        expectError("not a regular file", in: machineFile)

        try FileManager.default.removeItem(at: machineFile)
        try "[network]\nlisten=0.0.0.0:48200\n".write(to: machineFile, atomically: true, encoding: .utf8)
        let userFile = directory.appendingPathComponent(NetworkSettings.fileName)
        try "[network]\nlisten=nowhere\n".write(to: userFile, atomically: true, encoding: .utf8)
        expectError("listen: \"nowhere\"", in: userFile)
    }

    func testAMissingMachineFileIsIgnored() async throws {
        let (directory, machineFile, options) = try folders(machine: nil, user: "[network]\nname=desk\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: machineFile.path))
        let settings = try NetworkSettings(options: options, directory: directory)
        XCTAssertEqual(settings.name, "desk")
        XCTAssertEqual(settings.port, NetworkSettings.defaultPort)
        XCTAssertFalse(settings.isListenChosen)
        XCTAssertEqual(settings.peers, [])
        XCTAssertEqual(settings.relays, [])
    }
}
