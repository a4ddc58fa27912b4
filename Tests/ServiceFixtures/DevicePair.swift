import Foundation

/// Two devices on one machine: two sessions, each with its own bus, XDG folders (so its own
/// identity and pairings) and batond listening on loopback; B dials A as a static peer.
public final class DevicePair {
    public let a: ServiceSession
    public let b: ServiceSession
    public private(set) var batondA: ChildProcess!
    public private(set) var batondB: ChildProcess!
    public private(set) var idA = ""
    public private(set) var idB = ""
    public private(set) var addressA = ""
    private let arguments: [String]
    /// More arguments for B's batond alone, used by each ``startB()``.
    public var argumentsB: [String]
    /// Whether the names come from `--name` (fixed while batond runs) rather than from each
    /// device's `batond.conf` (so that the person may rename the device).
    private let fixedNames: Bool
    /// A folder of A's that B's batond, and every app it starts, do not see: A's files that a
    /// second machine would not have (``ServiceSession/startBatond(_:name:namespace:discovery:environment:hiding:)``).
    public let privateFolderOfA: URL?
    /// The network namespaces the two batonds run in, as two hosts, if they do.
    public let namespaces: (any TwoHostNetwork)?
    /// Whether the batonds in ``namespaces`` listen on all their addresses (as by default)
    /// rather than on the one each starts with: a device whose address changes stays reachable.
    private let listensOnAllAddresses: Bool

    /// Starts both batonds and waits until they are linked (not paired).
    ///
    /// - Parameters:
    ///   - argumentsB: more arguments for B's batond alone.
    ///   - fixedNames: `false` names the devices in their `batond.conf` instead of with `--name`.
    ///   - displayA: a `DISPLAY` for device A's processes (batond's too) instead of the test's own.
    ///   - displayB: a `DISPLAY` for device B's processes.
    ///   - hidingFromB: the name of a folder made in A's root that B does not see
    ///     (``privateFolderOfA``), as though the devices were two machines.
    ///   - namespaces: network namespaces for A and B, which then link over their network
    ///     (DNS-SD off), not loopback; they are removed with the pair.
    ///   - environmentA: more environment for device A's processes (a Wayland session's).
    ///   - environmentB: more environment for device B's processes (a `HOME` of its own).
    ///   - homesInRoots: each device's `HOME` is its own root folder, as two people's homes.
    ///   - listensOnAllAddresses: in `namespaces`, each batond listens on all its addresses, not
    ///     on its veth address alone (B still dials A at that address).
    public init(batondArguments: [String] = [], argumentsB: [String] = [], fixedNames: Bool = true,
                displayA: String? = nil, displayB: String? = nil, hidingFromB: String? = nil, namespaces: (any TwoHostNetwork)? = nil,
                environmentA: [String: String] = [:], environmentB: [String: String] = [:], homesInRoots: Bool = false,
                listensOnAllAddresses: Bool = false) throws {
        self.namespaces = namespaces
        self.listensOnAllAddresses = listensOnAllAddresses
        arguments = batondArguments
        self.argumentsB = argumentsB
        self.fixedNames = fixedNames
        a = try ServiceSession()
        b = try ServiceSession()
        let root = a.root
        privateFolderOfA = hidingFromB.map { root.appendingPathComponent($0, isDirectory: true) }
        if let folder = privateFolderOfA { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        if let displayA { a.environmentOverrides["DISPLAY"] = displayA }
        if let displayB { b.environmentOverrides["DISPLAY"] = displayB }
        if homesInRoots {
            a.environmentOverrides["HOME"] = a.root.path
            b.environmentOverrides["HOME"] = b.root.path
        }
        a.environmentOverrides.merge(environmentA) { _, new in new }
        b.environmentOverrides.merge(environmentB) { _, new in new }
        do {
            try start(batondArguments)
        } catch {
            tearDown()
            throw error
        }
    }

    private func start(_ batondArguments: [String]) throws {
        try a.startBus()
        try b.startBus()
        batondA = try a.startBatond(try naming(a, "alpha") + network(namespaces?.addressA) + batondArguments, name: "batond-a",
                                    namespace: namespaces?.a)
        let statusA = try Self.status(of: a)
        idA = statusA["device-id"] as? String ?? ""
        addressA = statusA["listen"] as? String ?? ""
        if listensOnAllAddresses, let host = namespaces?.addressA, let port = addressA.split(separator: ":").last {
            addressA = "\(host):\(port)"
        }
        try startB()
        guard waitUntil(timeout: 10, { try self.device(self.idA, on: self.b)?["connected"] as? Bool == true }) else {
            throw FixtureError("the two batonds never linked: \(batondB.log)")
        }
    }

    /// Starts (or restarts) device B's batond, dialing A.
    public func startB() throws {
        batondB = try b.startBatond(try naming(b, "beta") + network(namespaces?.addressB) + ["--peer", addressA] + arguments
                                    + argumentsB, name: "batond-b", namespace: namespaces?.b, hiding: privateFolderOfA)
        idB = try Self.status(of: b)["device-id"] as? String ?? ""
    }

    /// In a network namespace: listen on its veth address, without DNS-SD.
    private func network(_ address: String?) -> [String] {
        address.map { ["--no-discovery", "--listen", "\(listensOnAllAddresses ? "0.0.0.0" : $0):0"] } ?? []
    }

    /// The arguments that name a device `name`: `--name`, or none when the name is written
    /// to its `batond.conf`.
    private func naming(_ session: ServiceSession, _ name: String) throws -> [String] {
        guard !fixedNames else { return ["--name", name] }
        let folder = session.root.appendingPathComponent("config/baton")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try "[network]\nname=\(name)\n".write(to: folder.appendingPathComponent("batond.conf"), atomically: true,
                                              encoding: .utf8)
        return []
    }

    /// Pairs the two as a person would: `baton pair alpha` on B prints B's code, A lists its
    /// own, and each side confirms with the code the other shows. Returns B's code.
    @discardableResult
    public func pair() throws -> String {
        let request = try b.baton(["pair", "alpha"])
        guard request.status == 0,
              let line = request.output.split(separator: "\n").first(where: { $0.hasPrefix("Verification code: ") })
        else { throw FixtureError("baton pair failed: \(request.errorOutput)") }
        let codeB = String(line.dropFirst("Verification code: ".count))
        var shownOnA: String?
        guard waitUntil(timeout: 5, {
            shownOnA = try self.device(self.idB, on: self.a)?["pairing-code"] as? String
            return shownOnA != nil
        }), let codeA = shownOnA, codeA.count == 6, codeA != codeB else {
            throw FixtureError("A shows code \(shownOnA ?? "none"), B printed \(codeB): they must be two codes")
        }
        let confirmA = try a.baton(["pair", "--confirm", "beta", codeB])
        guard confirmA.status == 0 else { throw FixtureError("confirming on A failed: \(confirmA.errorOutput)") }
        let confirmB = try b.baton(["pair", "--confirm", "alpha", codeA])
        guard confirmB.status == 0, confirmB.output.contains("Paired with alpha") else {
            throw FixtureError("confirming on B failed: \(confirmB.output) \(confirmB.errorOutput)")
        }
        return codeB
    }

    /// `baton devices --json` on `session`: the record of `deviceID`.
    public func device(_ deviceID: String, on session: ServiceSession) throws -> [String: Any]? {
        let devices = try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []
        return devices.first { $0["id"] as? String == deviceID }
    }

    public static func status(of session: ServiceSession) throws -> [String: Any] {
        let result = try session.baton(["status", "--json"])
        guard result.status == 0, let status = result.json as? [String: Any] else {
            throw FixtureError("baton status failed: \(result.errorOutput)")
        }
        return status
    }

    /// Prints both batonds' logs: for a failed test.
    public func printLogs() {
        a.printLogs(label: "A/", limit: 4000)
        b.printLogs(label: "B/", limit: 4000)
    }

    public func tearDown() {
        a.tearDown()
        b.tearDown()
        namespaces?.remove()
    }
}

/// A second X server for a second device's windows (Xvfb, which picks a free display), with
/// a window manager if asked.
public final class VirtualDisplay {
    public let name: String
    private let process: Process
    private var windowManager: Process?

    /// Starts Xvfb; with `windowManager`, openbox manages it too, which says which window is
    /// active (EWMH `_NET_ACTIVE_WINDOW`) and activates one when asked (`xdotool windowactivate`).
    public init(windowManager: Bool = false) throws {
        let numberFile = FileManager.default.temporaryDirectory.appendingPathComponent("xvfb-\(UUID().uuidString)")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Xvfb picks a free display and writes its number to fd 3.
        process.arguments = ["-c", "exec Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>\"$0\"", numberFile.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var number = ""
        guard waitUntil(timeout: 10, {
            number = ((try? String(contentsOf: numberFile, encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return !number.isEmpty
        }) else {
            process.terminate()
            throw FixtureError("Xvfb did not start")
        }
        try? FileManager.default.removeItem(at: numberFile)
        name = ":\(number)"
        if windowManager {
            do {
                try startWindowManager()
            } catch {
                stop()
                throw error
            }
        }
    }

    /// Why a display with a window manager cannot be had here, or `nil` when it can.
    public static var missingWindowManager: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/openbox") ? nil : "openbox is missing (scripts/setup.sh installs it)"
    }

    /// Starts openbox on the display and waits until it manages it (it runs its `--startup`
    /// command then).
    private func startWindowManager() throws {
        let ready = FileManager.default.temporaryDirectory.appendingPathComponent("openbox-\(UUID().uuidString)")
        let openbox = Process()
        openbox.executableURL = URL(fileURLWithPath: "/usr/bin/openbox")
        openbox.arguments = ["--sm-disable", "--startup", "touch \(ready.path)"]
        openbox.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": name]) { $1 }
        openbox.standardInput = FileHandle.nullDevice
        openbox.standardOutput = FileHandle.nullDevice
        openbox.standardError = FileHandle.nullDevice
        try openbox.run()
        windowManager = openbox
        guard waitUntil(timeout: 10, { FileManager.default.fileExists(atPath: ready.path) }) else {
            throw FixtureError("openbox did not start on \(name)")
        }
        try? FileManager.default.removeItem(at: ready)
    }

    public func stop() {
        for process in [windowManager, process].compactMap({ $0 }) where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
