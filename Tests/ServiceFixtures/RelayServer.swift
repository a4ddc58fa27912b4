import Foundation

/// Syncthing's relay server (`strelaysrv`, Debian's `syncthing-relaysrv`) run privately for a
/// test: in no pool, without its status server, with its keys in a folder of its own, on
/// `host:port`, in `namespace` when given. ``address`` is the `relay://…?id=…` URI it prints.
public final class RelayServer {
    /// The program: setup.sh unpacks Debian's package in `.build/strelaysrv` (it is not
    /// installed, so no system service starts), else an installed one.
    public static var executable: URL? {
        let unpacked = SourceTree.path(".build/strelaysrv/usr/bin/strelaysrv")
        for candidate in [unpacked.path, "/usr/bin/strelaysrv"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
        return nil
    }

    public static var missingRequirement: String? {
        executable == nil ? "strelaysrv is missing: scripts/setup.sh unpacks Debian's syncthing-relaysrv into .build/strelaysrv" : nil
    }

    public let folder: URL
    public private(set) var address = ""
    private var child: ChildProcess?

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("keys"), withIntermediateDirectories: true)
    }

    /// Starts it and waits for its address. With `extAddress` (`HOST:PORT`), its invitations
    /// name that address for sessions instead of its own (`-ext-address`, meant for a port
    /// forwarded to it).
    public func start(host: String = "127.0.0.1", port: UInt16, namespace: String? = nil, pingInterval: String = "1m",
                      networkTimeout: String = "2m", extAddress: String? = nil) throws {
        guard let executable = Self.executable else { throw FixtureError(Self.missingRequirement ?? "") }
        stop()
        var command = [executable.path, "-pools=", "-status-srv=", "-listen=\(host):\(port)", "-keys=\(folder.appendingPathComponent("keys").path)",
                       "-ping-interval=\(pingInterval)", "-network-timeout=\(networkTimeout)"]
        if let extAddress { command.append("-ext-address=\(extAddress)") }
        if let namespace { command = ["/usr/sbin/ip", "netns", "exec", namespace] + command }
        let started = try ChildProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
                                       environment: ProcessInfo.processInfo.environment,
                                       logURL: folder.appendingPathComponent("relay.log"))
        child = started
        var found: String?
        guard waitUntil(timeout: 10, {
            found = started.log.split(separator: "\n").first { $0.contains("URI: relay://") }
                .map { String($0[$0.range(of: "relay://")!.lowerBound...]) }
            return found != nil || !started.isRunning
        }), let found else {
            throw FixtureError("strelaysrv did not start: \(started.log)")
        }
        address = found
    }

    public var log: String { child?.log ?? "" }

    /// Stops the server: every session through it ends.
    public func stop() {
        child?.stop(SIGKILL)
        child = nil
    }

    public func remove() {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        remove()
    }
}
