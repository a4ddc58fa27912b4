import Foundation
import ServiceFixtures

/// An example app's process under test (MailComposer, TextEditor): its own state (and data)
/// folders and trace file, the test's desktop (an X display driven with xdotool, or a
/// headless sway driven with wtype), and helpers to read its trace and drive its windows.
open class ExampleAppProcess {
    /// The program: the executable target's name, which is also its name on `Exec` lines.
    public let program: String
    public let root: URL
    public let traceURL: URL
    public let logURL: URL
    /// The option that names the app's data folder (MailComposer's `--data-dir`), if it has one.
    private let dataDirectoryOption: String?
    public private(set) var process: Process?
    /// Where its windows are shown, looked for and driven: the test's own X display unless
    /// set (a ``WaylandSession``, or another X display).
    public var desktop: any TestDesktop = X11Desktop()
    /// The X display its windows are looked for on; the test's own when `nil`.
    public var display: String? {
        get { (desktop as? X11Desktop)?.display }
        set { desktop = X11Desktop(display: newValue) }
    }

    public init(program: String, root: URL, name: String = UUID().uuidString, dataDirectoryOption: String? = nil) {
        self.program = program
        self.dataDirectoryOption = dataDirectoryOption
        self.root = root
        traceURL = root.appendingPathComponent("trace.jsonl")
        logURL = root.appendingPathComponent("\(name).log")
    }

    /// What the process wrote to standard error so far.
    public var log: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }

    public var stateDirectory: URL { root.appendingPathComponent("state") }
    public var dataDirectory: URL { root.appendingPathComponent("data") }

    /// The built program, beside the test bundle.
    public static func executable(_ program: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(program)
    }

    public var executable: URL { Self.executable(program) }

    /// Why the app cannot run here (the desktop, by default the X display with xdotool, or
    /// the built program is missing), or nil.
    public static func missingRequirement(_ program: String, desktop: TestDesktopKind = .x11) -> String? {
        if let missing = desktop.missingRequirement { return missing }
        guard FileManager.default.isExecutableFile(atPath: executable(program).path) else {
            return "\(program) is not built: run `swift build --build-tests` first"
        }
        return nil
    }

    /// The arguments every launch starts with: its own folders, and no timed saves.
    private var folderArguments: [String] {
        ["--state-dir", stateDirectory.path] + (dataDirectoryOption.map { [$0, dataDirectory.path] } ?? [])
    }

    /// Starts the app; `environment` replaces variables of the test's own environment, and
    /// the desktop's variables (`DISPLAY`, or `WAYLAND_DISPLAY` and the rest) replace both.
    /// A `standalone` instance (the default) is a process of its own even when another runs
    /// on the bus; otherwise it is the session's one, or passes its launch to that one. With
    /// `byNameFrom`, it is started as a person types its name in a terminal open in that
    /// folder: found through `PATH`, with its bare name as `argv[0]`.
    public func launch(_ arguments: [String] = [], environment extra: [String: String] = [:], standalone: Bool = true,
                       byNameFrom folder: URL? = nil) throws {
        let process = Process()
        let options = folderArguments + ["--save-interval", "0"] + (standalone ? ["--standalone"] : []) + arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }.merging(desktop.environment) { $1 }
        if let folder {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + options
            process.currentDirectoryURL = folder
            environment["PATH"] = executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        } else {
            process.executableURL = executable
            process.arguments = options
        }
        environment["BATON_TRACE"] = traceURL.path
        process.environment = environment
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        try log.close()
        self.process = process
    }

    /// The folder of the shipped resources of the example `program` (Info.plist, desktop entry).
    public static func shippedResources(_ program: String) -> URL {
        SourceTree.path("Examples/\(program)/Resources")
    }

    /// The shipped desktop entry.
    public var shippedDesktopEntry: URL {
        Self.shippedResources(program).appendingPathComponent("org.example.\(program).desktop")
    }

    /// The shipped D-Bus service file (a template: `@bindir@` is the installed binaries' folder).
    public var shippedServiceFile: URL {
        Self.shippedResources(program).appendingPathComponent("org.example.\(program).service")
    }

    /// The shipped desktop entry for an instance batond starts from its `Exec` line, with this
    /// process's trace, folders and `extra` arguments: not D-Bus activatable, so the test's bus
    /// needs no service file.
    public func desktopEntryStartingThisInstance(_ extra: [String] = []) throws -> String {
        let exec = (["Exec=env", "BATON_TRACE=\(traceURL.path)", executable.path] + folderArguments + extra)
            .joined(separator: " ")
        return try String(contentsOf: shippedDesktopEntry, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("DBusActivatable=") }
            .joined(separator: "\n")
            .replacingOccurrences(of: "Exec=\(program)", with: exec)
    }

    /// Installs this instance in `session` as the app (its desktop entry,
    /// ``desktopEntryStartingThisInstance(_:)``, in the session's applications folder), so
    /// that the session's batond starts it; makes its folder.
    public func install(in session: ServiceSession, _ extra: [String] = []) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try desktopEntryStartingThisInstance(extra)
            .write(to: session.dataHome.appendingPathComponent("applications/org.example.\(program).desktop"),
                   atomically: true, encoding: .utf8)
    }

    /// Waits for the process to exit; returns its status, or nil on timeout.
    public func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        guard let process else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    public func terminate() {
        guard let process, process.isRunning else { return }
        process.terminate()
        _ = waitForExit(timeout: 5)
    }

    /// The trace's events so far, each a JSON object: this process's once it was launched
    /// here, else every event in the file (an instance something else started).
    public func events() -> [[String: Any]] {
        TraceFile.events(at: traceURL, pid: process?.processIdentifier)
    }

    /// Waits until an event satisfies `predicate`; returns it.
    @discardableResult
    public func waitForEvent(timeout: TimeInterval = 10, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
        var found: [String: Any]?
        waitUntil(timeout: timeout) {
            found = events().first(where: predicate)
            return found != nil
        }
        return found
    }

    /// The process id: of the process it started, or one it was told of (a launched app).
    public var pid: Int32? {
        get { knownPID ?? process?.processIdentifier }
        set { knownPID = newValue }
    }
    private var knownPID: Int32?

    /// The ids of the windows of this process titled exactly `title`, waiting until one
    /// exists or `timeout` passes.
    public func windows(titled title: String, timeout: TimeInterval = 10) throws -> [String] {
        try windows(timeout: timeout) { $0 == title }
    }

    /// The ids of the windows of this process whose title satisfies `matches`.
    public func windows(timeout: TimeInterval = 10, where matches: (String) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let matching = try desktop.windows(pid: pid ?? 0, where: matches)
            if !matching.isEmpty { return matching }
            usleep(50_000)
        } while Date() < deadline
        return []
    }

    /// Gives keyboard focus to the window, as a click on it would.
    public func focus(_ window: String) throws {
        try desktop.focus(window)
    }

    /// Gives keyboard focus to the window and types `text`: in one burst with xdotool, key
    /// by key with wtype.
    public func type(_ text: String, into window: String) throws {
        try desktop.focus(window)
        try desktop.type(text)
    }

    public func key(_ keys: String, in window: String) throws {
        try desktop.focus(window)
        try desktop.key(keys)
    }
}

extension Dictionary where Key == String, Value == Any {
    public var event: String? { self["event"] as? String }
    public var type: String? { self["type"] as? String }
    public var title: String? { self["title"] as? String }
    public var userInfo: [String: Any]? { self["userInfo"] as? [String: Any] }
}
