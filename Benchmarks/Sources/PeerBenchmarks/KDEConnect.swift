import BatonGLib
import Foundation

/// Two KDE Connect daemons (Debian's `kdeconnect`), paired with each other, for batond's figures
/// at rest beside kdeconnectd's: each in its own network namespace (a ``NamespacePair``: they
/// find each other by KDE Connect's UDP broadcast over the veth link) on its own session bus
/// (a ``Device``'s), headless (`QT_QPA_PLATFORM=offscreen`), in its own folders under the
/// device's root. Both announce themselves as desktops; A is the one measured.
@MainActor
final class KDEConnectPair {
    static let executable = "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd"
    static let serviceName = "org.kde.kdeconnect"
    static let daemonPath = "/modules/kdeconnect"
    static let daemonInterface = "org.kde.kdeconnect.daemon"
    static let deviceInterface = "org.kde.kdeconnect.device"

    /// Why the pair cannot run here, or nil.
    static var missingRequirement: String? {
        if let missing = NamespacePair.missingRequirement { return missing }
        return FileManager.default.isExecutableFile(atPath: executable) ? nil : "kdeconnectd is missing (Debian package kdeconnect)"
    }

    /// One side: its bus and daemon.
    @MainActor
    private final class Side {
        let device: Device
        let namespace: String
        let bus: BusConnection
        var daemon: Process?
        var id = ""

        init(device: Device, namespace: String) throws {
            self.device = device
            self.namespace = namespace
            bus = try BusConnection.bus(at: device.address)
        }
    }

    private let namespaces: NamespacePair
    private let a: Side
    private let b: Side

    /// The measured daemon's process id.
    var pidA: Int32? { a.daemon.flatMap { $0.isRunning ? $0.processIdentifier : nil } }

    /// Starts both daemons and waits until each lists the other, reachable; then ``pair()``.
    init() async throws {
        namespaces = try NamespacePair(name: "kdc", tag: "kdc", subnet: "10.81.0")
        var devices: [Device] = []
        do {
            try namespaces.routeBroadcasts()
            devices.append(try Device(name: "kdeconnect-a"))
            devices.append(try Device(name: "kdeconnect-b"))
            a = try Side(device: devices[0], namespace: namespaces.a)
            b = try Side(device: devices[1], namespace: namespaces.b)
        } catch {
            for device in devices { device.stop() }
            namespaces.remove()
            throw error
        }
        do {
            try await start()
        } catch {
            stop()
            throw error
        }
    }

    private func start() async throws {
        // One after the other: B's announcement reaches an A already listening, which answers.
        for side in [a, b] { try await launch(side, name: side === a ? "Desk A" : "Desk B") }
        // An announcement that went unanswered: the daemon, restarted, announces itself again.
        for restart in [b, a, nil] {
            if (try? await waitFor("the two kdeconnectd to see each other", timeout: 8, { (try? await self.eachSeesTheOther()) ?? false })) != nil {
                return
            }
            guard let restart else { break }
            restart.daemon?.terminate()
            restart.daemon?.waitUntilExit()
            try await launch(restart, name: restart === a ? "Desk A" : "Desk B")
        }
        throw BenchmarkFailure("the two kdeconnectd never saw each other: \(log(of: a).suffix(800)) / \(log(of: b).suffix(800))")
    }

    /// Starts `side`'s kdeconnectd in its namespace and waits until it answers with its id.
    private func launch(_ side: Side, name: String) async throws {
        let root = side.device.root
        let config = root.appendingPathComponent("kdeconnect-config")
        let runtime = root.appendingPathComponent("kdeconnect-runtime")
        let home = root.appendingPathComponent("kdeconnect-home")
        let fileManager = FileManager.default
        for folder in [config.appendingPathComponent("kdeconnect"), home] {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try fileManager.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try "[General]\nname=\(name)\n".write(to: config.appendingPathComponent("kdeconnect/config"), atomically: true, encoding: .utf8)
        let process = Process()
        // `ip netns exec` and `env` each replace themselves with the next program: the process
        // started is kdeconnectd itself.
        process.executableURL = URL(fileURLWithPath: NamespacePair.ip)
        process.arguments = ["netns", "exec", side.namespace, "/usr/bin/env", "-C", home.path, "-u", "PLASMA_PLATFORM", Self.executable]
        var environment = ProcessInfo.processInfo.environment
        environment.merge([
            "DBUS_SESSION_BUS_ADDRESS": side.device.address, "QT_QPA_PLATFORM": "offscreen",
            "XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": runtime.path, "HOME": home.path,
            "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
        ]) { $1 }
        process.environment = environment
        let logFile = root.appendingPathComponent("kdeconnectd.log")
        _ = fileManager.createFile(atPath: logFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: logFile)
        process.standardError = process.standardOutput
        try process.run()
        side.daemon = process
        try await waitFor("kdeconnectd \(name)", timeout: 20) {
            guard process.isRunning else { throw BenchmarkFailure("kdeconnectd \(name) exited: \(self.log(of: side).suffix(1500))") }
            side.id = (try? await self.daemonCall(side, "selfId"))?.first?.string ?? ""
            return !side.id.isEmpty
        }
        let command = procFile("/proc/\(process.processIdentifier)/comm").trimmingCharacters(in: .whitespacesAndNewlines)
        guard command == "kdeconnectd" else { throw BenchmarkFailure("process \(process.processIdentifier) is \(command), not kdeconnectd") }
    }

    /// The ids `side` lists: reachable ones only, or paired ones only, when asked.
    private func devices(of side: Side, reachable: Bool, paired: Bool) async throws -> [String] {
        try await daemonCall(side, "devices", [.bool(reachable), .bool(paired)]).first?.strings ?? []
    }

    private func eachSeesTheOther() async throws -> Bool {
        let seenByA = try await devices(of: a, reachable: true, paired: false)
        let seenByB = try await devices(of: b, reachable: true, paired: false)
        return seenByA.contains(b.id) && seenByB.contains(a.id)
    }

    /// Pairs them as KDE Connect's own UI would: A requests, B accepts once the request came.
    func pair() async throws {
        try await deviceCall(a, of: b.id, "requestPair")
        try await waitFor("the two kdeconnectd paired", timeout: 20) {
            _ = try? await self.deviceCall(self.b, of: self.a.id, "acceptPairing")
            try await Task.sleep(nanoseconds: 100_000_000)
            let pairedOnA = (try? await self.devices(of: self.a, reachable: true, paired: true)) ?? []
            let pairedOnB = (try? await self.devices(of: self.b, reachable: true, paired: true)) ?? []
            return pairedOnA.contains(self.b.id) && pairedOnB.contains(self.a.id)
        }
    }

    /// Seconds A takes to list B as unreachable once B vanished without a word: B's address
    /// taken away while the link stays up (no FIN, no RST), as ``measureDeadPeer(batond:)`` does.
    func measureGone(timeout: Double = 300) async throws -> Double {
        try namespaces.cutB()
        let cut = Date()
        try await waitFor("kdeconnectd A to notice that B is gone", timeout: timeout) {
            try await Task.sleep(nanoseconds: 100_000_000)
            guard let reachable = try? await self.devices(of: self.a, reachable: true, paired: false) else { return false }
            return !reachable.contains(self.b.id)
        }
        return Date().timeIntervalSince(cut)
    }

    private func daemonCall(_ side: Side, _ method: String, _ arguments: [BusValue] = []) async throws -> [BusValue] {
        try await side.bus.call(Self.serviceName, path: Self.daemonPath, interface: Self.daemonInterface, method: method,
                                arguments: arguments, timeout: 10)
    }

    @discardableResult
    private func deviceCall(_ side: Side, of id: String, _ method: String) async throws -> [BusValue] {
        try await side.bus.call(Self.serviceName, path: "\(Self.daemonPath)/devices/\(id)", interface: Self.deviceInterface,
                                method: method, timeout: 10)
    }

    private func log(of side: Side) -> String {
        procFile(side.device.root.appendingPathComponent("kdeconnectd.log").path)
    }

    /// Stops both daemons and their buses, and removes the namespaces.
    func stop() {
        for side in [a, b] {
            if let daemon = side.daemon, daemon.isRunning {
                daemon.terminate()
                daemon.waitUntilExit()
            }
            side.device.stop()
        }
        namespaces.remove()
    }
}
