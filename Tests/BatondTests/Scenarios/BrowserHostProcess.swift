import Foundation
import ServiceFixtures

/// The built `baton-browser-host` on a test's session, fed native messaging frames on its
/// standard input as a browser would; its standard error goes to `browser-host.log` in the
/// session's folder.
final class BrowserHostProcess {
    let process = Process()
    let logURL: URL
    private let input = Pipe()

    init(session: ServiceSession) throws {
        // A write after the host exited must fail the test, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        logURL = session.root.appendingPathComponent("browser-host.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.executableURL = ServiceSession.product("baton-browser-host")
        process.arguments = ["chrome-extension://bhnmbbkpgmdhfljebciiefpchldnmjoo/"]
        process.environment = session.environment
        process.standardInput = input
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try log.close()
    }

    /// What the host wrote so far.
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    var isRunning: Bool { process.isRunning }

    /// Sends `bytes` as one frame: their length, then them.
    func send(_ bytes: [UInt8]) throws {
        try write(Self.header(bytes.count) + bytes)
    }

    /// Sends `object` as one JSON message.
    func send(json object: Any) throws {
        try send(Array(try JSONSerialization.data(withJSONObject: object)))
    }

    /// Writes raw bytes to the host's standard input.
    func write(_ bytes: [UInt8]) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(bytes))
    }

    /// Closes the host's standard input, as a browser does when the extension's port closes.
    func closeInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Waits for the host to exit; its status, or nil on timeout.
    func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        waitUntil(timeout: timeout) { !process.isRunning }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if waitForExit(timeout: 5) == nil { kill(process.processIdentifier, SIGKILL) }
    }

    /// A frame header: the length as 4 bytes in the machine's order.
    static func header(_ count: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt32(count)) { Array($0) }
    }

    /// Whether process `pid` runs (exists and is not a zombie).
    static func isAlive(_ pid: Int) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }
}
