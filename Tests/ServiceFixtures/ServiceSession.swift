import Foundation

/// A private D-Bus session for one test: its own `dbus-daemon`, XDG folders, D-Bus service
/// folder, and helpers to run batond, the `baton` tool and test apps on it.
///
/// Everything it starts is stopped by ``tearDown()``.
public final class ServiceSession {
    public let root: URL
    public private(set) var busAddress = ""
    private var busProcess: Process?
    private var children: [ChildProcess] = []
    /// Variables set for every process of the session on top of the rest, such as a
    /// `DISPLAY` of its own.
    public var environmentOverrides: [String: String] = [:]

    /// The folder with the built products (batond, baton, BatonTestApp, MailComposer).
    public static var productsFolder: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    public static func product(_ name: String) -> URL { productsFolder.appendingPathComponent(name) }

    /// Why the session cannot run here, or `nil` when it can.
    public static var missingRequirement: String? {
        let fileManager = FileManager.default
        if !fileManager.isExecutableFile(atPath: "/usr/bin/dbus-daemon") { return "dbus-daemon is missing" }
        for name in ["batond", "baton", "BatonTestApp"] where !fileManager.isExecutableFile(atPath: product(name).path) {
            return "\(name) is not built: run `swift build --build-tests` first"
        }
        return nil
    }

    public init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("baton-session-\(UUID().uuidString)")
        for folder in ["data/applications", "data/dbus-1/services", "state", "config", "dirs"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder),
                                                    withIntermediateDirectories: true)
        }
    }

    public var dataHome: URL { root.appendingPathComponent("data") }
    /// The bus's D-Bus service folder: `dbus-1/services` under ``dataHome``, where batond and
    /// apps look for service files too, as on a desktop.
    public var servicesFolder: URL { dataHome.appendingPathComponent("dbus-1/services") }

    /// The environment every process of the session gets: the test's own (display
    /// included), this bus, and the session's XDG folders.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["XDG_DATA_HOME"] = dataHome.path
        // The session's own folder first, then the system's, where GTK finds icon themes.
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("dirs").path + ":/usr/local/share:/usr/share"
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["NO_AT_BRIDGE"] = "1"
        environment["GTK_A11Y"] = "none"
        return environment.merging(environmentOverrides) { $1 }
    }

    /// Makes `folder` (made if needed) the session's documents folder: `XDG_DOCUMENTS_DIR` in
    /// its `user-dirs.dirs`, where GLib reads it the first time a process asks (batond: at its
    /// first document continuation).
    public func useDocumentsFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = root.appendingPathComponent("config", isDirectory: true)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "XDG_DOCUMENTS_DIR=\"\(folder.path)\"\n".write(to: config.appendingPathComponent("user-dirs.dirs"),
                                                             atomically: true, encoding: .utf8)
    }

    /// Starts the session's bus; services in ``servicesFolder`` are D-Bus activatable on it.
    public func startBus() throws {
        let config = root.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(root.path)</listen>
          <servicedir>\(servicesFolder.path)</servicedir>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        let addressFile = root.appendingPathComponent("bus.address")
        var environment = ProcessInfo.processInfo.environment
        environment.merge(self.environment.filter { $0.key.hasPrefix("XDG_") }) { $1 }
        // What a desktop session gives its bus (dbus-update-activation-environment), so the
        // apps the bus starts show their windows on the test's desktop.
        environment.merge(environmentOverrides) { $1 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file", config.path, "--nofork", "--print-address=1"]
        process.environment = environment
        _ = FileManager.default.createFile(atPath: addressFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: addressFile)
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try output.close()
        guard waitUntil(timeout: 10, { ((try? String(contentsOf: addressFile, encoding: .utf8)) ?? "").contains("\n") })
        else { throw FixtureError("dbus-daemon did not start") }
        busAddress = (try String(contentsOf: addressFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
        busProcess = process
    }

    /// Starts batond in the foreground on the session's bus and waits until it owns its name.
    /// Unless `arguments` say otherwise, it listens on a free loopback port, without DNS-SD.
    @discardableResult
    ///
    /// - Parameters:
    ///   - namespace: a network namespace to run it in (`ip netns exec`), with DNS-SD on and
    ///     `environment` added (such as that namespace's system bus).
    ///   - hiding: a folder it (and the apps it starts) sees empty: it runs in a mount
    ///     namespace of its own (the network namespace's, or `unshare --mount`'s) with a
    ///     tmpfs over the folder.
    public func startBatond(_ arguments: [String] = [], name: String = "batond", namespace: String? = nil,
                            discovery: Bool = false, environment extra: [String: String] = [:],
                            hiding hidden: URL? = nil) throws -> ChildProcess {
        var network = namespace == nil && !discovery ? ["--no-discovery"] : []
        if !arguments.contains("--listen") { network += ["--listen", namespace == nil ? "127.0.0.1:0" : "0.0.0.0:0"] }
        // The machine's own /etc/baton/batond.conf, where one exists, is not the test's.
        let machineConfig = arguments.contains("--machine-config") ? []
            : ["--machine-config", root.appendingPathComponent("etc/baton/batond.conf").path]
        let batondArguments = ["--state-dir", root.appendingPathComponent("state/baton").path, "--log-level", "debug"]
            + machineConfig + network + arguments
        // In a namespace, or with a folder hidden (a tmpfs over it, in a mount namespace of
        // its own: `ip netns exec` makes one, `unshare --mount` otherwise).
        var command = [Self.product("batond").path] + batondArguments
        if let hidden {
            command = ["/bin/sh", "-c", "mount -t tmpfs baton-hidden \"$1\" && shift && exec \"$@\"", "sh", hidden.path] + command
            if namespace == nil { command = ["/usr/bin/unshare", "--mount", "--propagation", "private"] + command }
        }
        if let namespace { command = ["/usr/sbin/ip", "netns", "exec", namespace] + command }
        let child = try start(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), name: name, environment: extra)
        guard waitUntil(timeout: 10, { child.log.contains("is org.baton.Daemon") || !child.isRunning }),
              child.isRunning else {
            throw FixtureError("batond did not start: \(child.log)")
        }
        return child
    }

    /// Starts a process on the session, with its output in `<name>.log`.
    public func start(_ executable: URL, _ arguments: [String], name: String,
                      environment extra: [String: String] = [:]) throws -> ChildProcess {
        let child = try ChildProcess(executable, arguments, environment: environment.merging(extra) { $1 },
                                     logURL: root.appendingPathComponent("\(name).log"))
        children.append(child)
        return child
    }

    /// Runs `baton` with `arguments` to its end.
    public func baton(_ arguments: [String], timeout: TimeInterval = 60) throws -> CommandResult {
        try run(Self.product("baton"), arguments, timeout: timeout)
    }

    /// Runs a program to its end on the session, collecting its output.
    public func run(_ executable: URL, _ arguments: [String], timeout: TimeInterval = 60) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let name = UUID().uuidString
        let outputURL = root.appendingPathComponent("\(name).out")
        let errorURL = root.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try output.close()
        try error.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw FixtureError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) ran over \(timeout) s")
        }
        return CommandResult(status: process.terminationStatus,
                             output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
                             errorOutput: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")
    }

    /// `baton activities --json`: what can be continued on this session's device.
    public func activities() throws -> [[String: Any]] {
        try baton(["activities", "--json"]).json as? [[String: Any]] ?? []
    }

    /// Waits until an activity titled `title` is listed; returns its record, or `nil` after `timeout`.
    public func waitForActivity(titled title: String, timeout: TimeInterval = 10) -> [String: Any]? {
        var found: [String: Any]?
        waitUntil(timeout: timeout) {
            found = try self.activities().first { $0["title"] as? String == title }
            return found != nil
        }
        return found
    }

    /// Prints the tail of each of the session's `.log` files: for a failed test.
    public func printLogs(label: String = "", limit: Int = 3000) {
        for file in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] where file.hasSuffix(".log") {
            let log = (try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)) ?? ""
            print("--- \(label)\(file)\n\(log.suffix(limit))")
        }
    }

    /// Installs a desktop entry whose `Exec` is the built BatonTestApp running as `id`, and
    /// which declares the test app's claims (team `org.baton.test`, `org.baton.test.note`): a
    /// BatonTestApp registering as `id` is then verified for them, as the program its entry
    /// names, and batond starts one when none runs.
    public func installTestAppEntry(id: String, icon: String? = nil) throws {
        try installDesktopEntry(id: id, exec: Self.product("BatonTestApp").path + " app --app-id \(id)",
                                teamID: "org.baton.test", activityTypes: ["org.baton.test.note"], icon: icon)
    }

    /// Installs a desktop entry in the session's `applications` folder.
    public func installDesktopEntry(id: String, exec: String, teamID: String, activityTypes: [String],
                                    dbusActivatable: Bool = false, icon: String? = nil, extraLines: [String] = []) throws {
        let entry = """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(exec)
            X-Baton-TeamID=\(teamID)
            X-Baton-ActivityTypes=\(activityTypes.joined(separator: ";"));
            \(dbusActivatable ? "DBusActivatable=true\n" : "")\(icon.map { "Icon=\($0)\n" } ?? "")\(extraLines.map { $0 + "\n" }.joined())
            """
        try entry.write(to: dataHome.appendingPathComponent("applications/\(id).desktop"), atomically: true,
                        encoding: .utf8)
    }

    /// Stops every process of the session and removes its folder.
    public func tearDown() {
        for child in children.reversed() { child.stop() }
        if let busProcess, busProcess.isRunning {
            busProcess.terminate()
            busProcess.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }
}

/// A fixture that could not be set up.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
