import Foundation
import Glibc

/// Two real Syncthing instances (Debian's `syncthing`) sharing one folder, as two devices'
/// Syncthings would: each with its own home (keys, `config.xml`), a plain HTTP GUI on its
/// loopback with a known API key, and global discovery, local discovery, relays and NAT
/// traversal off, so they only ever reach each other at the addresses written here: each in
/// its own network namespace when given a ``NetworkNamespacePair`` (as the two devices'
/// batonds are), else both on this loopback.
public final class SyncthingPair {
    /// One of the two.
    public struct Instance {
        public let home: URL
        public let folder: URL
        public let deviceID: String
        public let guiPort: UInt16
        public let apiKey: String
        let syncPort: UInt16
        /// The network namespace it runs in, and its address there; loopback without one.
        let namespace: String?
        let syncHost: String
        public fileprivate(set) var process: ChildProcess?

        public var guiAddress: String { "127.0.0.1:\(guiPort)" }
        public var log: String { process?.log ?? "" }
    }

    public private(set) var a: Instance
    public private(set) var b: Instance
    public let folderID: String

    public static let executable = URL(fileURLWithPath: "/usr/bin/syncthing")
    /// Why Syncthing cannot run here, or nil.
    public static var missingRequirement: String? {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            return "syncthing is missing (Debian package syncthing; scripts/setup.sh installs it)"
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { return "curl is missing (Debian package curl)" }
        return nil
    }

    /// Makes both homes (`homeA`, `homeB`: each device's `$XDG_CONFIG_HOME/syncthing`, where
    /// batond finds the configuration) sharing `folderA` and `folderB` as `folderID`, and
    /// starts both.
    public init(homeA: URL, folderA: URL, homeB: URL, folderB: URL, folderID: String = "notes",
                namespaces: (any TwoHostNetwork)? = nil) throws {
        self.folderID = folderID
        a = try Self.prepare(home: homeA, folder: folderA, namespace: namespaces?.a, host: namespaces?.addressA)
        b = try Self.prepare(home: homeB, folder: folderB, namespace: namespaces?.b, host: namespaces?.addressB)
        for instance in [a, b] { try write(instance) }
        a.process = try Self.start(a)
        b.process = try Self.start(b)
        for instance in [a, b] {
            guard waitUntil(timeout: 30, { (try? self.get("/rest/system/ping", on: instance))?.contains("pong") == true }) else {
                throw FixtureError("Syncthing did not start: \(instance.log.suffix(2000))")
            }
        }
    }

    private static func prepare(home: URL, folder: URL, namespace: String?, host: String?) throws -> Instance {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".stfolder"), withIntermediateDirectories: true)
        let generate = try run(executable, ["-generate=\(home.path)"])
        guard generate.status == 0 else { throw FixtureError("syncthing -generate failed: \(generate.errorOutput)") }
        let id = try run(executable, ["-home=\(home.path)", "-device-id"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard id.count > 50 else { throw FixtureError("no Syncthing device id: \(id)") }
        return Instance(home: home, folder: folder, deviceID: id, guiPort: try freePort(), apiKey: UUID().uuidString,
                        syncPort: try freePort(), namespace: namespace, syncHost: host ?? "127.0.0.1")
    }

    /// The instance's whole configuration: the shared folder (watched, rescanned often), the
    /// two devices at their loopback addresses, the GUI, and nothing that reaches outside.
    private func write(_ instance: Instance) throws {
        // Only A dials (B knows no address of A's): when both dial at once, Syncthing drops
        // both connections and waits its reconnection interval.
        let devices = [a, b].map { device in
            let address = instance.deviceID == b.deviceID && device.deviceID == a.deviceID
                ? "dynamic" : "tcp://\(device.syncHost):\(device.syncPort)"
            return """
                <device id="\(device.deviceID)" name="\(device.deviceID == a.deviceID ? "alpha" : "beta")" compression="metadata" introducer="false">
                    <address>\(address)</address>
                </device>
            """
        }.joined(separator: "\n")
        let config = """
            <configuration version="36">
                <folder id="\(folderID)" label="\(folderID)" path="\(instance.folder.path)" type="sendreceive" rescanIntervalS="10" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
                    <device id="\(a.deviceID)"></device>
                    <device id="\(b.deviceID)"></device>
                </folder>
            \(devices)
                <gui enabled="true" tls="false" debugging="false">
                    <address>127.0.0.1:\(instance.guiPort)</address>
                    <apikey>\(instance.apiKey)</apikey>
                </gui>
                <options>
                    <listenAddress>tcp://\(instance.syncHost):\(instance.syncPort)</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <reconnectionIntervalS>2</reconnectionIntervalS>
                    <urAccepted>-1</urAccepted>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <startBrowser>false</startBrowser>
                    <crashReportingEnabled>false</crashReportingEnabled>
                </options>
            </configuration>
            """
        try config.write(to: instance.home.appendingPathComponent("config.xml"), atomically: true, encoding: .utf8)
    }

    private static func start(_ instance: Instance) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["STNOUPGRADE"] = "1"
        let (program, arguments) = command(in: instance.namespace, executable.path,
                                           ["-home=\(instance.home.path)", "-no-browser", "-no-restart", "-logflags=0"])
        return try ChildProcess(program, arguments, environment: environment,
                                logURL: instance.home.appendingPathComponent("syncthing.log"))
    }

    /// `executable` with `arguments`, inside `namespace` when there is one.
    private static func command(in namespace: String?, _ executable: String, _ arguments: [String]) -> (URL, [String]) {
        guard let namespace else { return (URL(fileURLWithPath: executable), arguments) }
        return (URL(fileURLWithPath: "/usr/sbin/ip"), ["netns", "exec", namespace, executable] + arguments)
    }

    /// Waits until `path` (inside the folder) holds the same bytes on both.
    @discardableResult
    public func waitUntilSynced(_ path: String, timeout: TimeInterval = 30) -> Bool {
        waitUntil(timeout: timeout) {
            let onA = try? Data(contentsOf: a.folder.appendingPathComponent(path))
            return onA != nil && onA == (try? Data(contentsOf: b.folder.appendingPathComponent(path)))
        }
    }

    /// Pauses or resumes the shared folder on B, as its person would in Syncthing's GUI.
    public func setFolderPausedOnB(_ paused: Bool) throws {
        let (program, arguments) = Self.command(in: b.namespace, "/usr/bin/curl",
                                                ["-sS", "-f", "-X", "PATCH", "-H", "X-API-Key: \(b.apiKey)",
                                                 "-d", "{\"paused\": \(paused)}", "http://\(b.guiAddress)/rest/config/folders/\(folderID)"])
        let result = try Self.run(program, arguments)
        guard result.status == 0 else { throw FixtureError("cannot pause the folder on B: \(result.errorOutput)") }
    }

    public func get(_ path: String, on instance: Instance) throws -> String {
        let (program, arguments) = Self.command(in: instance.namespace, "/usr/bin/curl",
                                                ["-sS", "-f", "-H", "X-API-Key: \(instance.apiKey)", "http://\(instance.guiAddress)\(path)"])
        let result = try Self.run(program, arguments)
        guard result.status == 0 else { throw FixtureError("GET \(path): \(result.errorOutput)") }
        return result.output
    }

    public func stop() {
        a.process?.stop()
        b.process?.stop()
    }

    public func printLogs() {
        print("--- syncthing A\n\(a.log.suffix(2000))\n--- syncthing B\n\(b.log.suffix(2000))")
    }

    /// Runs a tool (syncthing, curl) to its end; with STNODEFAULTFOLDER, `syncthing -generate`
    /// makes no ~/Sync folder of its own.
    private static func run(_ executable: URL, _ arguments: [String]) throws -> CommandResult {
        try runTool(executable.path, arguments,
                    environment: ProcessInfo.processInfo.environment.merging(["STNODEFAULTFOLDER": "1"]) { $1 })
    }

    /// A loopback TCP port free now.
    private static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(descriptor, pointer, length) == 0 else { return -1 }
                return getsockname(descriptor, pointer, &length)
            }
        }
        guard bound == 0 else { throw FixtureError("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
