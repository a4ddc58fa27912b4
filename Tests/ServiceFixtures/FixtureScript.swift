import Foundation

/// Runs fixture scripts and short programs (`ip`) to their end.
public enum FixtureScript {
    /// Runs `program` with `arguments` to its end, its output and errors together, within
    /// `timeout` seconds. Not through `Process`, which keeps waiting for the daemons a script
    /// leaves running (avahi-daemon, dbus-daemon).
    ///
    /// - Returns: the exit status and what it wrote.
    /// - Throws: ``FixtureError`` when it cannot start or runs over `timeout`.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let command = ([program] + arguments).map { "'\($0)'" }.joined(separator: " ") + " >'\(log.path)' 2>&1 </dev/null"
        var pid: pid_t = 0
        let words = ["/bin/bash", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, "/bin/bash", nil, nil, argv, environ) == 0 else {
            throw FixtureError("cannot run \(program)")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                throw FixtureError("\(program) ran over \(Int(timeout)) s")
            }
            usleep(20_000)
        }
        return ((status >> 8) & 0xff, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
