import Foundation
import ServiceFixtures
import XCTest

/// A MailComposer process under test: its own data, state and trace files, the test's
/// desktop (an X display driven with xdotool, or a headless sway driven with wtype), and
/// helpers to read its trace and drive its windows.
final class MailComposerProcess {
    let root: URL
    let traceURL: URL
    let logURL: URL
    private(set) var process: Process?
    /// Where its windows are shown, looked for and driven: the test's own X display unless
    /// set (a ``WaylandSession``, or another X display).
    var desktop: any TestDesktop = X11Desktop()
    /// The X display its windows are looked for on; the test's own when `nil`.
    var display: String? {
        get { (desktop as? X11Desktop)?.display }
        set { desktop = X11Desktop(display: newValue) }
    }

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

    /// Skips unless the desktop (by default the X display, with xdotool) and the built app are there.
    static func requirements(_ desktop: TestDesktopKind = .x11) throws {
        if let missing = desktop.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: executable.path),
                          "MailComposer is not built: run `swift build --build-tests` first")
    }

    /// Starts the app; `environment` replaces variables of the test's own environment, and
    /// the desktop's variables (`DISPLAY`, or `WAYLAND_DISPLAY` and the rest) replace both.
    /// A `standalone` instance (the default) is a process of its own even when another runs
    /// on the bus; otherwise it is the session's one, or passes its launch to that one.
    func launch(_ arguments: [String] = [], environment extra: [String: String] = [:], standalone: Bool = true) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--state-dir", stateDirectory.path, "--data-dir", dataDirectory.path,
                             "--save-interval", "0"] + (standalone ? ["--standalone"] : []) + arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }.merging(desktop.environment) { $1 }
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

    /// The shipped desktop entry.
    static var shippedDesktopEntry: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/MailComposer/Resources/org.example.MailComposer.desktop")
    }

    /// The shipped D-Bus service file (a template: `@bindir@` is the installed binaries' folder).
    static var shippedServiceFile: URL {
        shippedDesktopEntry.deletingLastPathComponent().appendingPathComponent("org.example.MailComposer.service")
    }

    /// The shipped desktop entry for an instance batond starts from its `Exec` line, with this
    /// process's trace, folders and `extra` arguments: not D-Bus activatable, so the test's bus
    /// needs no service file.
    func desktopEntryStartingThisInstance(_ extra: [String] = []) throws -> String {
        let exec = (["Exec=env", "BATON_TRACE=\(traceURL.path)", Self.executable.path,
                     "--state-dir", stateDirectory.path, "--data-dir", dataDirectory.path] + extra).joined(separator: " ")
        return try String(contentsOf: Self.shippedDesktopEntry, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("DBusActivatable=") }
            .joined(separator: "\n")
            .replacingOccurrences(of: "Exec=MailComposer", with: exec)
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

    /// The process id: of the process it started, or one it was told of (a launched app).
    var pid: Int32? {
        get { knownPID ?? process?.processIdentifier }
        set { knownPID = newValue }
    }
    private var knownPID: Int32?

    /// The ids of the windows of this process titled exactly `title`, waiting until one
    /// exists or `timeout` passes.
    func windows(titled title: String, timeout: TimeInterval = 10) throws -> [String] {
        try windows(timeout: timeout) { $0 == title }
    }

    /// The ids of the windows of this process whose title satisfies `matches`.
    func windows(timeout: TimeInterval = 10, where matches: (String) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let matching = try desktop.windows(pid: pid ?? 0, where: matches)
            if !matching.isEmpty { return matching }
            usleep(50_000)
        } while Date() < deadline
        return []
    }

    /// Gives keyboard focus to the window, as a click on it would.
    func focus(_ window: String) throws {
        try desktop.focus(window)
    }

    /// Gives keyboard focus to the window and types `text`: in one burst with xdotool, key
    /// by key with wtype.
    func type(_ text: String, into window: String) throws {
        try desktop.focus(window)
        try desktop.type(text)
    }

    func key(_ keys: String, in window: String) throws {
        try desktop.focus(window)
        try desktop.key(keys)
    }
}

extension Dictionary where Key == String, Value == Any {
    var event: String? { self["event"] as? String }
    var type: String? { self["type"] as? String }
    var title: String? { self["title"] as? String }
    var userInfo: [String: Any]? { self["userInfo"] as? [String: Any] }
}
