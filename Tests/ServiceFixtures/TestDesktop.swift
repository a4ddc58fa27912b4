import Foundation

/// Where a test's GTK windows are shown, and how the test finds them and drives them as a
/// person would: an X display driven with xdotool (``X11Desktop``) or a headless sway driven
/// with wtype and sway's IPC (``WaylandSession``). The same test code runs on either.
///
/// A window is named by an opaque id: an X window id, or a sway container id.
public protocol TestDesktop: AnyObject {
    /// A short name for messages and screenshot files: `x11` or `wayland`.
    var kind: String { get }
    /// The variables an app needs to show its windows here, set on top of its environment.
    var environment: [String: String] { get }
    /// The ids of the windows shown now whose title satisfies `matches`, of process `pid`
    /// (of any process when `nil`).
    func windows(pid: Int32?, where matches: (String) -> Bool) throws -> [String]
    /// Gives keyboard focus to `window` and waits until the display says it has it.
    func focus(_ window: String) throws
    /// The window with keyboard focus, if any.
    func focusedWindow() throws -> String?
    /// Types `text` into the focused window.
    func type(_ text: String) throws
    /// Presses a key with modifiers, written as xdotool writes it: `ctrl+Return`, `ctrl+n`.
    func key(_ keys: String) throws
    /// Saves a PNG of the whole display at `path`.
    func screenshot(to path: String) throws
    /// Stops whatever the desktop started; nothing for a display it did not start.
    func stop()
}

/// The desktops the tests know, to choose one by name.
public enum TestDesktopKind: String, Sendable, CaseIterable {
    case x11
    case wayland

    /// Why this desktop cannot be had here, or `nil` when it can.
    public var missingRequirement: String? {
        switch self {
        case .x11: X11Desktop.missingRequirement
        case .wayland: WaylandSession.missingRequirement
        }
    }

    /// The desktop: the test's own X display (``X11Desktop``), or a new headless sway
    /// (``WaylandSession``), which the caller stops with ``TestDesktop/stop()``.
    public func make() throws -> any TestDesktop {
        switch self {
        case .x11: X11Desktop()
        case .wayland: try WaylandSession()
        }
    }
}

/// An X display (by default the test's own `DISPLAY`, as `xvfb-run` sets it), driven with
/// xdotool; screenshots with ImageMagick's `import`.
public final class X11Desktop: TestDesktop {
    /// The display, such as `:99`; `nil` for the test's own.
    public let display: String?

    public init(display: String? = nil) {
        self.display = display
    }

    /// Why the tests' X display cannot be used, or `nil` when it can.
    public static var missingRequirement: String? {
        if !hasDisplay { return "no display: run under xvfb-run" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool") { return "xdotool is missing" }
        return nil
    }

    public var kind: String { "x11" }

    public var environment: [String: String] {
        display.map { ["DISPLAY": $0] } ?? [:]
    }

    private var toolEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }

    /// Runs xdotool with `arguments` on this display; returns its output.
    @discardableResult
    public func xdotool(_ arguments: [String]) throws -> String {
        try runTool("/usr/bin/xdotool", arguments, environment: toolEnvironment).output
    }

    public func windows(pid: Int32?, where matches: (String) -> Bool) throws -> [String] {
        let ids = try xdotool(["search", "--all", "--onlyvisible"] + (pid.map { ["--pid", "\($0)"] } ?? [])
                              + ["--name", "."])
            .split(separator: "\n").map(String.init)
        return try ids.filter { matches(try xdotool(["getwindowname", $0]).trimmingCharacters(in: .newlines)) }
    }

    public func focus(_ window: String) throws {
        try xdotool(["windowfocus", "--sync", window])
    }

    public func focusedWindow() throws -> String? {
        let id = try xdotool(["getwindowfocus"]).trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }

    /// Types `text` in one burst (no delay between keys).
    public func type(_ text: String) throws {
        try xdotool(["type", "--delay", "0", text])
    }

    public func key(_ keys: String) throws {
        try xdotool(["key", keys])
    }

    public func screenshot(to path: String) throws {
        let display = display ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        let result = try runTool("/usr/bin/import", ["-display", display, "-window", "root", path],
                                 environment: toolEnvironment)
        if result.status != 0 { throw FixtureError("import failed: \(result.errorOutput)") }
    }

    public func stop() {}
}

/// Runs a tool to its end (killed after `timeout`), in `folder` when given; its status and output.
public func runTool(_ path: String, _ arguments: [String], environment: [String: String]? = nil, in folder: URL? = nil,
                    timeout: TimeInterval = 30) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let folder { process.currentDirectoryURL = folder }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes while the tool runs, so a full pipe cannot block it.
    nonisolated(unsafe) var errorData = Data()
    let errorRead = DispatchGroup()
    errorRead.enter()
    DispatchQueue.global().async {
        errorData = error.fileHandleForReading.readDataToEndOfFile()
        errorRead.leave()
    }
    let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    timer.cancel()
    errorRead.wait()
    return CommandResult(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                         errorOutput: String(decoding: errorData, as: UTF8.self))
}
