import BatonPeer
import Foundation

/// Syncthing's relay server (Debian's `strelaysrv`, which scripts/setup.sh unpacks into
/// .build/strelaysrv) run privately for the relay figures: in no pool, without its status
/// server, its keys in a folder of its own, listening on `host:port`.
///
/// Its session invitations name no address (`-ext-address=:PORT`), so each device joins a
/// session where it reaches the relay: through its forwarder, for the delayed figures. Left
/// to itself, strelaysrv names the address it listens on (as ::ffff:HOST, with its port),
/// and sessions would go around the forwarders.
final class PrivateRelay {
    /// The program: unpacked by setup.sh (from the working directory, as bench.sh runs, or
    /// beside this package), else an installed one.
    static var executable: String? {
        let unpacked = ".build/strelaysrv/usr/bin/strelaysrv"
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return [unpacked, root.appendingPathComponent(unpacked).path, "/usr/bin/strelaysrv"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let host: String
    let port: UInt16
    /// The relay's device id (the SHA-256 of its certificate), from the URI it prints.
    let id: String
    private let folder: URL
    private let process: Process

    init(host: String, port: UInt16) throws {
        guard let executable = Self.executable else {
            throw BenchmarkFailure("strelaysrv is missing: scripts/setup.sh unpacks Debian's syncthing-relaysrv into .build/strelaysrv")
        }
        self.host = host
        self.port = port
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-bench-relay-\(UUID().uuidString)")
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("keys"), withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("relay.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-pools=", "-status-srv=", "-listen=\(host):\(port)", "-ext-address=:\(port)",
                             "-keys=\(folder.appendingPathComponent("keys").path)", "-ping-interval=1m", "-network-timeout=2m"]
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // It prints `URI: relay://0.0.0.0:PORT/?id=…&…` (the advertised address) once it listens.
        var found: String?
        for _ in 0..<1000 where found == nil && process.isRunning {
            usleep(10_000)
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            found = text.split(separator: "\n").lazy.compactMap { line in
                line.range(of: "relay://").map { String(line[$0.lowerBound...]) }
            }.first
        }
        guard let found, let id = URLComponents(string: found)?.queryItems?.first(where: { $0.name == "id" })?.value else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: folder)
            throw BenchmarkFailure("strelaysrv did not start: \(text.suffix(1000))")
        }
        self.id = id
    }

    /// The relay's address as reached at `host`: its own, or a forwarder's on the same port.
    func address(reachedAt host: String) throws -> RelayAddress {
        try RelayAddress("relay://\(host):\(port)/?id=\(id)")
    }

    func stop() {
        stopProcess()
        try? FileManager.default.removeItem(at: folder)
    }

    private func stopProcess() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
