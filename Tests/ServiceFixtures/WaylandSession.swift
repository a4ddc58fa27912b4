import Foundation

/// A headless Wayland desktop for one test: sway with wlroots' headless backend and pixman
/// renderer (no GPU, no seat, no tty), a virtual keyboard on its seat, and helpers that find,
/// focus and type into windows through sway's IPC and wtype, and take screenshots with grim.
///
/// - sway refuses to run as root, so when the tests run as root it runs as the unprivileged
///   user ``compositorUserName`` (created here, as a system user without a home, if it is
///   missing; `nobody` if it cannot be created), through `setpriv`. Its `XDG_RUNTIME_DIR` is
///   a folder of its own, mode 0700, owned by that user. Run as anyone else, sway runs as
///   that user.
/// - Apps get a runtime folder of their own (mode 0700, the test's user) in which the
///   compositor's socket is linked under its name, and `WAYLAND_DISPLAY` with that name,
///   `GDK_BACKEND=wayland` and an empty `DISPLAY` (``environment``). Root's clients may
///   connect to a socket in another user's 0700 folder; GTK is never shown that folder.
/// - A seat without a keyboard never makes a window active (so no activity would become
///   current), so a wtype process holds a virtual keyboard on the seat for the whole session.
///   Each ``type(_:)`` and ``key(_:)`` runs wtype again, waiting 300 ms before its first key
///   so that sway has its keymap (keys sent before are lost).
/// - ``stop()`` (also on deinit) ends the keyboard and sway by their process ids and removes
///   the folders. Both were started with `setpriv --pdeathsig TERM`, so they also end if the
///   test process dies first.
public final class WaylandSession: TestDesktop {
    /// The user sway runs as when the tests run as root.
    public static let compositorUserName = "baton-compositor"
    /// How long wtype waits between creating its keyboard and its first key.
    public static let keymapDelayMilliseconds = 300

    /// The session's folder: the sway config, its log, and the two runtime folders.
    public let root: URL
    /// sway's `XDG_RUNTIME_DIR`, owned by the user it runs as, mode 0700.
    public let compositorRuntimeDirectory: URL
    /// The apps' `XDG_RUNTIME_DIR`, with a link to the compositor's socket.
    public let clientRuntimeDirectory: URL
    /// The compositor's Wayland socket, such as `wayland-1` (its name in both runtime folders).
    public private(set) var socketName = ""
    /// sway's IPC socket, for `swaymsg -s`.
    public private(set) var ipcSocket = ""
    /// The user sway runs as.
    public let compositorUser: String

    private let sway: Process
    private var keyboard: Process?
    private var stopped = false

    /// Why a Wayland session cannot be had here, or `nil` when it can.
    public static var missingRequirement: String? {
        for tool in ["sway", "swaymsg", "wtype", "setpriv"] where !isExecutable(tool) {
            return "\(tool) is missing: scripts/setup.sh installs sway, wtype and grim"
        }
        return nil
    }

    private static func isExecutable(_ tool: String) -> Bool {
        ["/usr/bin/", "/usr/sbin/", "/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
    }

    private static func path(of tool: String) -> String {
        ["/usr/bin/", "/usr/sbin/", "/bin/"].map { $0 + tool }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/\(tool)"
    }

    /// Starts sway and the virtual keyboard; throws, having stopped what it started, when
    /// either does not come up within `timeout`.
    public init(timeout: TimeInterval = 15) throws {
        if let missing = Self.missingRequirement { throw FixtureError(missing) }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("baton-wayland-\(UUID().uuidString)")
        compositorRuntimeDirectory = root.appendingPathComponent("compositor-runtime")
        clientRuntimeDirectory = root.appendingPathComponent("client-runtime")
        let user = try Self.compositorAccount()
        compositorUser = user?.name ?? NSUserName()

        let fileManager = FileManager.default
        try fileManager.createDirectory(at: root, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o755])
        for folder in [compositorRuntimeDirectory, clientRuntimeDirectory] {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: false,
                                            attributes: [.posixPermissions: 0o700])
        }
        if let user, chown(compositorRuntimeDirectory.path, user.uid, user.gid) != 0 {
            throw FixtureError("cannot give \(compositorRuntimeDirectory.path) to \(user.name): errno \(errno)")
        }
        // No bar, no Xwayland, no background (so no swaybg), no title bars (GTK draws its
        // own): only the windows, tiled side by side on a 1280x1024 output as on Xvfb. A
        // window that asks to be activated (xdg-activation) gets focus.
        let config = root.appendingPathComponent("sway.config")
        try """
        xwayland disable
        seat * fallback true
        focus_on_window_activation focus
        default_border none
        default_floating_border none
        output * resolution 1280x1024
        """.write(to: config, atomically: true, encoding: .utf8)
        try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config.path)

        let log = root.appendingPathComponent("sway.log")
        _ = fileManager.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        sway = Process()
        sway.executableURL = URL(fileURLWithPath: Self.path(of: "setpriv"))
        let identity = user.map { ["--reuid=\($0.uid)", "--regid=\($0.gid)", "--clear-groups"] } ?? []
        sway.arguments = identity + ["--pdeathsig", "TERM", "--", Self.path(of: "sway"), "-c", config.path]
        sway.environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": user == nil ? NSHomeDirectory() : "/nonexistent",
            "USER": compositorUser,
            "LOGNAME": compositorUser,
            "XDG_RUNTIME_DIR": compositorRuntimeDirectory.path,
            "WLR_BACKENDS": "headless",
            "WLR_RENDERER": "pixman",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_HEADLESS_OUTPUTS": "1",
        ]
        sway.standardInput = FileHandle.nullDevice
        sway.standardOutput = logHandle
        sway.standardError = logHandle
        try sway.run()
        try? logHandle.close()

        do {
            try waitForCompositor(timeout: timeout)
            try fileManager.createSymbolicLink(
                atPath: clientRuntimeDirectory.appendingPathComponent(socketName).path,
                withDestinationPath: compositorRuntimeDirectory.appendingPathComponent(socketName).path)
            try startKeyboard(timeout: timeout)
        } catch {
            stop(removingFolder: false)
            let log = self.log.suffix(3000)
            stop()
            throw FixtureError("\(error)\n--- sway.log\n\(log)")
        }
    }

    deinit { stop() }

    /// What sway wrote so far.
    public var log: String {
        (try? String(contentsOf: root.appendingPathComponent("sway.log"), encoding: .utf8)) ?? ""
    }

    public var kind: String { "wayland" }

    /// For apps: the compositor by name in their own runtime folder, GTK on Wayland only.
    public var environment: [String: String] {
        ["WAYLAND_DISPLAY": socketName, "XDG_RUNTIME_DIR": clientRuntimeDirectory.path,
         "GDK_BACKEND": "wayland", "DISPLAY": ""]
    }

    /// The environment the session's own clients (wtype, grim) run with.
    private var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        environment["DISPLAY"] = nil
        return environment
    }

    // MARK: Starting

    /// The user to run sway as when the tests run as root (created if missing), or `nil`
    /// when they do not run as root and sway runs as their user.
    private static func compositorAccount() throws -> (name: String, uid: uid_t, gid: gid_t)? {
        guard getuid() == 0 else { return nil }
        if let account = account(named: compositorUserName) { return account }
        // A system user with no home and no login shell; exit status 9 means it exists now
        // (another test process made it in between), which is as good.
        // A group of that name left behind (by userdel) becomes its group.
        if let useradd = ["/usr/sbin/useradd", "/sbin/useradd"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            let group = getgrnam(compositorUserName) == nil ? ["--user-group"] : ["--gid", compositorUserName]
            _ = try? runTool(useradd, ["--system", "--no-create-home", "--home-dir", "/nonexistent",
                                       "--shell", "/usr/sbin/nologin"] + group + [compositorUserName])
        }
        if let account = account(named: compositorUserName) { return account }
        if let nobody = account(named: "nobody") { return nobody }
        throw FixtureError("no unprivileged user to run sway as: \(compositorUserName) could not be created")
    }

    private static func account(named name: String) -> (name: String, uid: uid_t, gid: gid_t)? {
        guard let entry = getpwnam(name) else { return nil }
        return (name, entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    private func waitForCompositor(timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard sway.isRunning else { throw FixtureError("sway exited with status \(sway.terminationStatus)") }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: compositorRuntimeDirectory.path)) ?? []
            if socketName.isEmpty,
               let name = names.filter({ $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }).sorted().first {
                socketName = name
            }
            if ipcSocket.isEmpty, let name = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) {
                ipcSocket = compositorRuntimeDirectory.appendingPathComponent(name).path
            }
            if !socketName.isEmpty, !ipcSocket.isEmpty, (try? swaymsg(["-t", "get_version"]))?.status == 0 {
                return
            }
            usleep(50_000)
        }
        throw FixtureError("sway did not come up within \(timeout) s (socket \(socketName), IPC \(ipcSocket))")
    }

    /// Starts a wtype that holds a virtual keyboard on the seat until it is stopped, and waits
    /// until sway lists a keyboard on the seat.
    private func startKeyboard(timeout: TimeInterval) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path(of: "setpriv"))
        process.arguments = ["--pdeathsig", "TERM", "--", Self.path(of: "wtype"), "-s", "86400000"]
        process.environment = clientEnvironment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        keyboard = process
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else { throw FixtureError("wtype (the seat's keyboard) exited") }
            if try hasKeyboard() { return }
            usleep(50_000)
        }
        throw FixtureError("the seat has no keyboard after \(timeout) s")
    }

    /// Whether sway's seat has a keyboard now.
    public func hasKeyboard() throws -> Bool {
        let seats = try JSONSerialization.jsonObject(with: Data(try swaymsg(["-t", "get_seats"]).output.utf8))
            as? [[String: Any]] ?? []
        return seats.contains { seat in
            ((seat["devices"] as? [[String: Any]]) ?? []).contains { $0["type"] as? String == "keyboard" }
        }
    }

    // MARK: Stopping

    /// Ends the keyboard and sway (SIGTERM, then SIGKILL after 5 s), and removes the folders.
    public func stop() {
        stop(removingFolder: true)
    }

    private func stop(removingFolder: Bool) {
        if !stopped {
            stopped = true
            for process in [keyboard, sway].compactMap({ $0 }) where process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                let deadline = Date().addingTimeInterval(5)
                while process.isRunning && Date() < deadline { usleep(10_000) }
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                }
            }
        }
        if removingFolder { try? FileManager.default.removeItem(at: root) }
    }

    /// Whether sway is still running.
    public var isRunning: Bool { sway.isRunning }
    /// sway's process id (setpriv runs it in place).
    public var compositorPID: Int32 { sway.processIdentifier }
    /// The keyboard's wtype process id, once started.
    public var keyboardPID: Int32? { keyboard?.processIdentifier }

    // MARK: IPC

    /// Runs `swaymsg -s <socket>` with `arguments`.
    @discardableResult
    public func swaymsg(_ arguments: [String]) throws -> CommandResult {
        try runTool(Self.path(of: "swaymsg"), ["-s", ipcSocket] + arguments, timeout: 10)
    }

    /// A window (a view in sway's tree).
    public struct Window {
        public let id: String
        public let title: String
        public let pid: Int32?
        public let appID: String?
        public let focused: Bool
        public let visible: Bool
    }

    /// sway's tree (`swaymsg -t get_tree`).
    public func tree() throws -> [String: Any] {
        let result = try swaymsg(["-t", "get_tree"])
        guard result.status == 0,
              let tree = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        else { throw FixtureError("swaymsg -t get_tree failed: \(result.errorOutput)") }
        return tree
    }

    /// Every window in the tree, tiled or floating.
    public func allWindows() throws -> [Window] {
        var windows: [Window] = []
        func walk(_ node: [String: Any]) {
            // Views are the nodes with a shell (xdg_shell); outputs and workspaces have none.
            if node["shell"] is String, let id = node["id"] as? Int {
                windows.append(Window(id: String(id), title: node["name"] as? String ?? "",
                                      pid: (node["pid"] as? Int).map(Int32.init), appID: node["app_id"] as? String,
                                      focused: node["focused"] as? Bool ?? false,
                                      visible: node["visible"] as? Bool ?? false))
            }
            for key in ["nodes", "floating_nodes"] {
                ((node[key] as? [[String: Any]]) ?? []).forEach(walk)
            }
        }
        walk(try tree())
        return windows
    }

    public func windows(pid: Int32?, where matches: (String) -> Bool) throws -> [String] {
        try allWindows().filter { window in pid.map { window.pid == $0 } ?? true && matches(window.title) }.map(\.id)
    }

    public func focus(_ window: String) throws {
        let result = try swaymsg(["[con_id=\(window)] focus"])
        guard result.status == 0 else { throw FixtureError("sway could not focus \(window): \(result.output)") }
        guard waitUntil(timeout: 5, { try self.focusedWindow() == window }) else {
            throw FixtureError("window \(window) did not get focus")
        }
    }

    public func focusedWindow() throws -> String? {
        try allWindows().first { $0.focused }?.id
    }

    // MARK: Keyboard

    /// Runs wtype with `arguments` after the keymap delay, to its end.
    public func wtype(_ arguments: [String]) throws {
        let result = try runTool(Self.path(of: "wtype"), ["-s", "\(Self.keymapDelayMilliseconds)"] + arguments,
                                 environment: clientEnvironment)
        if result.status != 0 { throw FixtureError("wtype \(arguments) failed: \(result.errorOutput)") }
    }

    /// Types `text` into the focused window. The keys reach the app spread over several
    /// main-loop turns, not in one burst as xdotool's do.
    public func type(_ text: String) throws {
        try wtype(["--", text])
    }

    /// `ctrl+Return` becomes `-M ctrl -k Return -m ctrl`; `super` is wtype's `logo`.
    public func key(_ keys: String) throws {
        var parts = keys.split(separator: "+").map(String.init)
        guard let key = parts.popLast() else { return }
        let modifiers = parts.map { modifier -> String in
            switch modifier.lowercased() {
            case "control", "ctrl": "ctrl"
            case "super", "meta": "logo"
            default: modifier.lowercased()
            }
        }
        try wtype(modifiers.flatMap { ["-M", $0] } + ["-k", key] + modifiers.reversed().flatMap { ["-m", $0] })
    }

    // MARK: Screenshots

    /// Whether grim is installed, for ``screenshot(to:)``.
    public static var canTakeScreenshots: Bool { isExecutable("grim") }

    /// Saves the whole output with grim; does nothing without grim.
    public func screenshot(to path: String) throws {
        guard Self.canTakeScreenshots else { return }
        let result = try runTool(Self.path(of: "grim"), [path], environment: clientEnvironment)
        if result.status != 0 { throw FixtureError("grim failed: \(result.errorOutput)") }
    }
}
