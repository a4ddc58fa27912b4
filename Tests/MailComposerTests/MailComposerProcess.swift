import Foundation
import ServiceFixtures
import XCTest

/// A MailComposer process under test: its own data, state and trace files, the test's
/// display, and helpers to read its trace and drive it with xdotool.
final class MailComposerProcess {
    let root: URL
    let traceURL: URL
    let logURL: URL
    private(set) var process: Process?
    /// The X display its windows are looked for on; the test's own when `nil`.
    var display: String?

    init(root: URL, name: String = UUID().uuidString) {
        self.root = root
        traceURL = root.appendingPathComponent("trace.jsonl")
        logURL = root.appendingPathComponent("\(name).log")
    }

    /// What the process wrote to standard error so far.
    var log: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }

    var stateDirectory: URL { root.appendingPathComponent("state") }
    var dataDirectory: URL { root.appendingPathComponent("data") }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("MailComposer")
    }

    /// Skips unless a display, xdotool and the built app are there.
    static func requirements() throws {
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool"), "xdotool is missing")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: executable.path),
                          "MailComposer is not built: run `swift build --build-tests` first")
    }

    /// Starts the app; `environment` replaces variables of the test's own environment.
    func launch(_ arguments: [String] = [], environment extra: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--state-dir", stateDirectory.path, "--data-dir", dataDirectory.path,
                             "--save-interval", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["BATON_TRACE"] = traceURL.path
        process.environment = environment
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        try log.close()
        self.process = process
    }

    /// Waits for the process to exit; returns its status, or nil on timeout.
    func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        guard let process else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func terminate() {
        guard let process, process.isRunning else { return }
        process.terminate()
        _ = waitForExit(timeout: 5)
    }

    /// The trace's events so far, each a JSON object: this process's once it was launched
    /// here, else every event in the file (an instance something else started).
    func events() -> [[String: Any]] {
        TraceFile.events(at: traceURL, pid: process?.processIdentifier)
    }

    /// Waits until an event satisfies `predicate`; returns it.
    @discardableResult
    func waitForEvent(timeout: TimeInterval = 10, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
        var found: [String: Any]?
        waitUntil(timeout: timeout) {
            found = events().first(where: predicate)
            return found != nil
        }
        return found
    }

    /// Runs xdotool with `arguments`; returns its output.
    @discardableResult
    static func xdotool(_ arguments: [String], display: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xdotool")
        process.arguments = arguments
        if let display {
            process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    /// The process id: of the process it started, or one it was told of (a launched app).
    var pid: Int32? {
        get { knownPID ?? process?.processIdentifier }
        set { knownPID = newValue }
    }
    private var knownPID: Int32?

    /// The ids of the visible X windows of this process titled exactly `title`, waiting
    /// until one exists or `timeout` passes.
    func windows(titled title: String, timeout: TimeInterval = 10) throws -> [String] {
        try windows(timeout: timeout) { $0 == title }
    }

    /// The ids of the visible X windows of this process whose title satisfies `matches`.
    func windows(timeout: TimeInterval = 10, where matches: (String) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let ids = try Self.xdotool(["search", "--all", "--onlyvisible", "--pid", "\(pid ?? 0)", "--name", "."],
                                       display: display)
                .split(separator: "\n").map(String.init)
            let matching = try ids.filter {
                matches(try Self.xdotool(["getwindowname", $0], display: display).trimmingCharacters(in: .newlines))
            }
            if !matching.isEmpty { return matching }
            usleep(50_000)
        } while Date() < deadline
        return []
    }

    /// Gives keyboard focus to the window and types `text` in one burst.
    func type(_ text: String, into window: String) throws {
        try Self.xdotool(["windowfocus", "--sync", window])
        try Self.xdotool(["type", "--delay", "0", text])
    }

    func key(_ keys: String, in window: String) throws {
        try Self.xdotool(["windowfocus", "--sync", window])
        try Self.xdotool(["key", keys])
    }
}

extension Dictionary where Key == String, Value == Any {
    var event: String? { self["event"] as? String }
    var type: String? { self["type"] as? String }
    var title: String? { self["title"] as? String }
    var userInfo: [String: Any]? { self["userInfo"] as? [String: Any] }
}
