import Foundation

/// A process a test started, with its standard error in a file and its own environment.
public final class ChildProcess {
    public let process = Process()
    public let logURL: URL

    /// Starts `executable` with `arguments` and `environment`, in `currentDirectory` when
    /// given; its output goes to `logURL`.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String], logURL: URL,
                currentDirectory: URL? = nil) throws {
        self.logURL = logURL
        process.executableURL = executable
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.arguments = arguments
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try log.close()
    }

    /// What the process wrote so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Waits for the process to exit; its status, or `nil` on timeout.
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Sends `signal` (SIGTERM by default) and waits for the exit.
    public func stop(_ signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        if waitForExit(timeout: 5) == nil {
            kill(process.processIdentifier, SIGKILL)
            waitForExit(timeout: 5)
        }
    }
}

/// The outcome of a command run to its end.
public struct CommandResult {
    public let status: Int32
    public let output: String
    public let errorOutput: String

    /// Standard output parsed as JSON.
    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(output.utf8)) }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; whether it held.
/// A condition that throws counts as not holding yet.
@discardableResult
public func waitUntil(timeout: TimeInterval = 10, _ condition: () throws -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if (try? condition()) == true { return true }
        usleep(20_000)
    } while Date() < deadline
    return (try? condition()) == true
}
