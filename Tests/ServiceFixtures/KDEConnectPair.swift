import Foundation

/// Two real KDE Connect daemons (Debian's `kdeconnect`, 22.12), one per device: each runs in
/// its device's network namespace (a ``NetworkNamespacePair``) on its device's session bus (a
/// ``ServiceSession``), so batond can run beside device A's kdeconnectd on A's bus. They find
/// each other by KDE Connect's own UDP broadcast over the veth link, are paired through their
/// own D-Bus API (``pair()``), and share URLs with each other (``shareURL(_:from:)``), which
/// ``receivedURLs(on:)`` sees as the receiving daemon's `shareReceived` signals.
///
/// Each daemon has its own folders under its session's root: `kdeconnect-config` (its
/// `XDG_CONFIG_HOME`: name, keys, pairings), `kdeconnect-runtime`, `kdeconnect-home` and
/// `kdeconnect-cwd` (its working directory: where received text lands). Its output is the
/// session's `kdeconnectd.log`, the signals it emits `kdeconnect-shares.log`, both shown by
/// the session's `printLogs()`.
///
/// They announce themselves once, when they start (to 255.255.255.255:1716, so each namespace
/// gets a default route over its veth first): A starts first, then B, whose announcement A
/// answers. In the rare case they have not found each other after a few seconds, B (then A)
/// is restarted to announce itself again (``discoveryRestarts``).
///
/// The daemons are started here, never D-Bus activated (that crashes them); ``stop()`` (or
/// the pair's end) stops them, and so do the sessions' `tearDown()` (they are the sessions'
/// processes) and the namespaces' `remove()` (which kills what runs inside).
public final class KDEConnectPair {
    /// One of the two devices.
    public enum Side: Sendable, CustomStringConvertible {
        case a, b
        public var other: Side { self == .a ? .b : .a }
        public var description: String { self == .a ? "A" : "B" }
    }

    /// One device's daemon and everything around it.
    final class Instance {
        let side: Side
        let session: ServiceSession
        let namespace: String
        let name: String
        let isPhone: Bool
        var id = ""
        var daemon: ChildProcess?
        var monitor: ChildProcess?

        init(side: Side, session: ServiceSession, namespace: String, name: String, isPhone: Bool) {
            self.side = side
            self.session = session
            self.namespace = namespace
            self.name = name
            self.isPhone = isPhone
        }

        var bus: String { session.busAddress }
        var configHome: URL { session.root.appendingPathComponent("kdeconnect-config", isDirectory: true) }
        var runtimeFolder: URL { session.root.appendingPathComponent("kdeconnect-runtime", isDirectory: true) }
        var home: URL { session.root.appendingPathComponent("kdeconnect-home", isDirectory: true) }
        var workingDirectory: URL { session.root.appendingPathComponent("kdeconnect-cwd", isDirectory: true) }
    }

    public static let executable = URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd")
    public static let serviceName = "org.kde.kdeconnect"
    static let daemonPath = "/modules/kdeconnect"
    static let daemonInterface = "org.kde.kdeconnect.daemon"
    static let deviceInterface = "org.kde.kdeconnect.device"
    static let shareInterface = "org.kde.kdeconnect.device.share"
    static let gdbus = URL(fileURLWithPath: "/usr/bin/gdbus")
    static let dbusMonitor = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
    static let ipTool = URL(fileURLWithPath: "/usr/sbin/ip")

    /// Why the pair cannot run here, or nil.
    public static var missingRequirement: String? {
        if let missing = NetworkNamespacePair.missingRequirement { return missing }
        let fileManager = FileManager.default
        guard fileManager.isExecutableFile(atPath: executable.path) else {
            return "kdeconnectd is missing (Debian package kdeconnect)"
        }
        for (tool, package) in [(gdbus.path, "libglib2.0-bin"), (dbusMonitor.path, "dbus-bin"), ("/usr/bin/env", "coreutils")]
        where !fileManager.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (Debian package \(package))"
        }
        return nil
    }

    private let a: Instance
    private let b: Instance
    public let namespaces: NetworkNamespacePair
    private var stopped = false

    /// Device A's daemon id (its `selfId`), which B lists it by.
    public var idA: String { a.id }
    /// Device B's daemon id (its `selfId`), which A lists it by.
    public var idB: String { b.id }

    /// Starts both daemons, each in its namespace on its session's bus (both buses must be
    /// started), and waits until each lists the other, reachable (not paired).
    ///
    /// - Parameters:
    ///   - nameA, nameB: the devices' names, as KDE Connect announces them.
    ///   - bIsPhone: B announces itself as a phone (`type` `smartphone`), A as a desktop.
    ///   - timeout: how long the daemons may take to start and to find each other.
    public init(sessionA: ServiceSession, sessionB: ServiceSession, namespaces: NetworkNamespacePair,
                nameA: String = "Desk", nameB: String = "Pixel", bIsPhone: Bool = true,
                timeout: TimeInterval = 20) throws {
        guard !sessionA.busAddress.isEmpty, !sessionB.busAddress.isEmpty else {
            throw FixtureError("KDEConnectPair needs both sessions' buses started")
        }
        self.namespaces = namespaces
        a = Instance(side: .a, session: sessionA, namespace: namespaces.a, name: nameA, isPhone: false)
        b = Instance(side: .b, session: sessionB, namespace: namespaces.b, name: nameB, isPhone: bIsPhone)
        do {
            try start(timeout: timeout)
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    private func start(timeout: TimeInterval) throws {
        // Routes and names before the daemons start: they announce themselves once, at start.
        for instance in [a, b] {
            try routeBroadcasts(in: instance.namespace)
            try prepare(instance)
            instance.monitor = try startMonitor(instance)
        }
        // One after the other: B announces itself to an A already up and listening, which
        // then connects to B.
        for instance in [a, b] { try startDaemon(instance, timeout: timeout) }
        // Should an announcement still go unanswered, a daemon, restarted, announces itself
        // again (not `forceOnNetworkChange`, which in 22.12 can leave the other device's object
        // missing from the bus while unpaired).
        var restarts = [b, a]
        while true {
            let last = restarts.isEmpty
            let (seen, state) = waitUntilEachSeesTheOther(timeout: last ? timeout : min(timeout, Self.announceTimeout))
            if seen { break }
            try checkDaemonsRun()
            guard !last else {
                throw FixtureError("the two kdeconnectd never saw each other (A \(a.id), B \(b.id)); last: \(state); "
                                   + "A's log: \(a.daemon?.log.suffix(1500) ?? ""); B's log: \(b.daemon?.log.suffix(1500) ?? "")")
            }
            let instance = restarts.removeFirst()
            print("KDEConnectPair: the daemons did not find each other within \(Self.announceTimeout) s (\(state)); "
                  + "restarting \(instance.side)'s kdeconnectd")
            discoveryRestarts += 1
            instance.daemon?.stop()
            try startDaemon(instance, timeout: timeout)
        }
    }

    /// How long the daemons get to find each other before one is restarted: they usually do in
    /// 1–2 s, 3 s on a busy machine.
    static let announceTimeout: TimeInterval = 8

    /// How many times a daemon had to be restarted for the two to find each other.
    public private(set) var discoveryRestarts = 0

    /// Starts `instance`'s daemon and waits until it answers on its bus.
    private func startDaemon(_ instance: Instance, timeout: TimeInterval) throws {
        let daemon = try launchDaemon(instance, logName: discoveryRestarts == 0 ? "kdeconnectd" : "kdeconnectd-\(discoveryRestarts)")
        instance.daemon = daemon
        var id: String?
        guard waitUntil(timeout: timeout, {
            guard daemon.isRunning else { return true }
            id = try self.strings(self.call(instance, Self.daemonPath, Self.daemonInterface + ".selfId")).first
            return id?.isEmpty == false
        }), daemon.isRunning, let id else {
            throw FixtureError("kdeconnectd \(instance.side) did not start: \(daemon.log.suffix(2000))")
        }
        guard instance.id.isEmpty || instance.id == id else {
            throw FixtureError("kdeconnectd \(instance.side) came back as \(id), not \(instance.id)")
        }
        instance.id = id
    }

    private func checkDaemonsRun() throws {
        for instance in [a, b] where instance.daemon?.isRunning != true {
            throw FixtureError("kdeconnectd \(instance.side) exited: \(instance.daemon?.log.suffix(2000) ?? "")")
        }
    }

    /// Waits until each daemon lists the other, reachable, with its device object on the bus;
    /// whether they did, and what they showed last.
    private func waitUntilEachSeesTheOther(timeout: TimeInterval) -> (Bool, String) {
        var state = "nothing"
        let seen = waitUntil(timeout: timeout) {
            var states: [String] = []
            defer { state = states.joined(separator: "; ") }
            var both = true
            for instance in [a, b] {
                let other = instance === a ? b : a
                guard instance.daemon?.isRunning == true else { return true }
                do {
                    let devices = try strings(call(instance, Self.daemonPath, Self.daemonInterface + ".devices", "false", "false"))
                    guard devices.contains(other.id) else {
                        states.append("\(instance.side) lists \(devices)")
                        both = false
                        continue
                    }
                    let reachable = bool(try property(instance, "isReachable", of: other.id))
                    states.append("\(instance.side) lists \(other.side), reachable: \(reachable)")
                    both = both && reachable
                } catch {
                    states.append("\(instance.side): \(error)")
                    both = false
                }
            }
            return both
        }
        return (seen && a.daemon?.isRunning == true && b.daemon?.isRunning == true, state)
    }

    /// A default route over the namespace's veth: without one, KDE Connect's broadcast to
    /// 255.255.255.255 fails with ENETUNREACH.
    private func routeBroadcasts(in namespace: String) throws {
        let links = try runTool(Self.ipTool.path, ["-j", "-n", namespace, "link", "show", "type", "veth"])
        let parsed = (try? JSONSerialization.jsonObject(with: Data(links.output.utf8))) as? [[String: Any]] ?? []
        guard links.status == 0, let veth = parsed.compactMap({ $0["ifname"] as? String }).first else {
            throw FixtureError("no veth in namespace \(namespace): \(links.output) \(links.errorOutput)")
        }
        let route = try runTool(Self.ipTool.path, ["-n", namespace, "route", "replace", "default", "dev", veth])
        guard route.status == 0 else {
            throw FixtureError("cannot route broadcasts in \(namespace): \(route.errorOutput)")
        }
    }

    /// The daemon's folders, with its name written where it reads it (its keys it makes itself
    /// at its first start).
    private func prepare(_ instance: Instance) throws {
        let fileManager = FileManager.default
        let config = instance.configHome.appendingPathComponent("kdeconnect", isDirectory: true)
        for folder in [config, instance.home, instance.workingDirectory] {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try fileManager.createDirectory(at: instance.runtimeFolder, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
        try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: instance.runtimeFolder.path)
        try "[General]\nname=\(instance.name)\n".write(to: config.appendingPathComponent("config"), atomically: true,
                                                      encoding: .utf8)
    }

    /// `dbus-monitor` on the instance's bus for `shareReceived`, ready once it is a monitor
    /// (the bus then takes its name away: `NameLost`).
    private func startMonitor(_ instance: Instance) throws -> ChildProcess {
        let rule = "type='signal',interface='\(Self.shareInterface)',member='shareReceived'"
        let monitor = try instance.session.start(Self.dbusMonitor, ["--address", instance.bus, rule],
                                                 name: "kdeconnect-shares")
        guard waitUntil(timeout: 10, { monitor.log.contains("member=NameLost") || !monitor.isRunning }),
              monitor.isRunning else {
            throw FixtureError("dbus-monitor did not start on \(instance.side)'s bus: \(monitor.log)")
        }
        return monitor
    }

    /// `kdeconnectd` in the instance's namespace, on its session's bus, in its own folders.
    private func launchDaemon(_ instance: Instance, logName: String) throws -> ChildProcess {
        let environment = [
            "QT_QPA_PLATFORM": "offscreen",
            "XDG_CONFIG_HOME": instance.configHome.path,
            "XDG_RUNTIME_DIR": instance.runtimeFolder.path,
            "HOME": instance.home.path,
            "XDG_CACHE_HOME": instance.home.appendingPathComponent(".cache").path,
        ]
        // `env -C`: its working directory (the session's `start` takes none); `-u`: no phone
        // unless asked, whatever the test's own environment says.
        let platform = instance.isPhone ? ["PLASMA_PLATFORM=phone"] : ["-u", "PLASMA_PLATFORM"]
        let (program, arguments) = namespaces.command(in: instance.namespace, "/usr/bin/env",
                                                      ["-C", instance.workingDirectory.path] + platform
                                                      + [Self.executable.path])
        return try instance.session.start(program, arguments, name: logName, environment: environment)
    }

    private func instance(_ side: Side) -> Instance { side == .a ? a : b }

    // MARK: - Pairing and sharing

    /// Pairs the two as KDE Connect's own UI would: A requests, B accepts once the request has
    /// arrived. Returns when each trusts the other and has its share plugin loaded for it.
    public func pair(timeout: TimeInterval = 15) throws {
        try call(a, devicePath(b.id), Self.deviceInterface + ".requestPair")
        guard waitUntil(timeout: timeout, { self.bool(try self.property(self.b, "hasPairingRequests", of: self.a.id)) }) else {
            throw FixtureError("B never heard A's pairing request: \(b.daemon?.log.suffix(2000) ?? "")")
        }
        try call(b, devicePath(a.id), Self.deviceInterface + ".acceptPairing")
        for instance in [a, b] {
            let other = instance === a ? b : a
            guard waitUntil(timeout: timeout, { self.bool(try self.property(instance, "isTrusted", of: other.id)) }) else {
                throw FixtureError("\(instance.side) does not trust \(other.side): \(instance.daemon?.log.suffix(2000) ?? "")")
            }
            guard waitUntil(timeout: timeout, { try self.hasSharePlugin(instance, for: other.id) }) else {
                throw FixtureError("\(instance.side) has no share plugin for \(other.side): \(instance.daemon?.log.suffix(2000) ?? "")")
            }
        }
    }

    /// Whether `side` trusts (is paired with) the other.
    public func isTrusted(on side: Side) throws -> Bool {
        bool(try property(instance(side), "isTrusted", of: instance(side.other).id))
    }

    /// Whether `side` sees the other as reachable.
    public func isReachable(on side: Side) throws -> Bool {
        bool(try property(instance(side), "isReachable", of: instance(side.other).id))
    }

    /// A string property (`type`, `name`, `iconName`…) of the other device, as `side` sees it.
    public func deviceProperty(_ name: String, on side: Side) throws -> String? {
        strings(try property(instance(side), name, of: instance(side.other).id)).first
    }

    /// Shares `url` from `side` to the other device (its share plugin's `shareUrl`); paired only.
    public func shareURL(_ url: String, from side: Side) throws {
        let from = instance(side)
        try call(from, devicePath(instance(side.other).id) + "/share", Self.shareInterface + ".shareUrl",
                 Self.quoted(url))
    }

    /// Shares `url` from B (as a phone would) to A.
    public func shareURL(fromB url: String) throws { try shareURL(url, from: .b) }

    /// Shares `url` from A to B.
    public func shareURL(fromA url: String) throws { try shareURL(url, from: .a) }

    /// The URLs `side`'s daemon received from the other so far, oldest first, as it reported
    /// them (`shareReceived`: after its own `QUrl` normalisation, so `"` reads `%22`).
    public func receivedURLs(on side: Side) -> [String] {
        received(on: side).map(\.url)
    }

    /// When `side`'s kdeconnectd said it received `url` first: the `time=` dbus-monitor gives
    /// its `shareReceived` signal.
    public func timeReceived(_ url: String, on side: Side) -> Date? {
        received(on: side).first { $0.url == url }?.time
    }

    /// The links `side` received, in order, each with its signal's time.
    private func received(on side: Side) -> [(url: String, time: Date?)] {
        let log = instance(side).monitor?.log ?? ""
        var links: [(url: String, time: Date?)] = []
        var inShare = false
        var time: Date?
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("signal ") || line.hasPrefix("method ") || line.hasPrefix("error ") {
                inShare = line.contains("member=shareReceived") && line.contains("path=\(Self.daemonPath)/devices/")
                time = line.split(separator: " ").first { $0.hasPrefix("time=") }
                    .flatMap { Double($0.dropFirst("time=".count)) }.map(Date.init(timeIntervalSince1970:))
                continue
            }
            guard inShare else { continue }
            let text = line.drop { $0 == " " }
            // dbus-monitor writes `string "…"` without escaping what is inside.
            guard text.hasPrefix("string \""), text.hasSuffix("\""), text.count >= 9 else { continue }
            links.append((String(text.dropFirst(8).dropLast()), time))
            inShare = false
        }
        return links
    }

    /// Waits until `side` received `url`; whether it did within `timeout`.
    @discardableResult
    public func waitForReceivedURL(_ url: String, on side: Side, timeout: TimeInterval = 10) -> Bool {
        waitUntil(timeout: timeout) { self.receivedURLs(on: side).contains(url) }
    }

    /// The daemon of `side` (its output: `log`).
    public func daemon(on side: Side) -> ChildProcess? { instance(side).daemon }

    /// `side`'s daemon's `XDG_CONFIG_HOME` (`kdeconnect/` in it: name, keys, trusted devices).
    public func configHome(on side: Side) -> URL { instance(side).configHome }

    /// `side`'s daemon's working directory.
    public func workingDirectory(on side: Side) -> URL { instance(side).workingDirectory }

    /// Stops both daemons and the monitors (the namespaces are the caller's to remove).
    public func stop() {
        guard !stopped else { return }
        stopped = true
        for instance in [a, b] {
            instance.daemon?.stop()
            instance.monitor?.stop()
        }
    }

    public func printLogs() {
        for instance in [a, b] {
            print("--- kdeconnectd \(instance.side) (\(instance.id))\n\(instance.daemon?.log.suffix(3000) ?? "not started")")
            print("--- shareReceived on \(instance.side)\n\(instance.monitor?.log.suffix(2000) ?? "not started")")
        }
    }

    // MARK: - D-Bus through gdbus

    private func devicePath(_ id: String) -> String { "\(Self.daemonPath)/devices/\(id)" }

    /// `gdbus call` of `method` (`interface.member`) on `instance`'s daemon, with arguments in
    /// GVariant text; its output (such as `('…',)`), or an error when the call failed.
    @discardableResult
    private func call(_ instance: Instance, _ path: String, _ method: String, _ arguments: String...) throws -> String {
        let result = try runTool(Self.gdbus.path, ["call", "--address", instance.bus, "--dest", Self.serviceName,
                                               "--object-path", path, "--timeout", "10", "--method", method] + arguments)
        guard result.status == 0 else {
            throw FixtureError("\(method) on \(instance.side) failed: \(result.errorOutput)")
        }
        return result.output
    }

    /// A device property, as `side` sees device `id`: `(<…>,)`.
    private func property(_ instance: Instance, _ name: String, of id: String) throws -> String {
        try call(instance, devicePath(id), "org.freedesktop.DBus.Properties.Get",
                 Self.quoted(Self.deviceInterface), Self.quoted(name))
    }

    /// Whether `instance` has the share plugin's object for device `id`: only once they are paired.
    private func hasSharePlugin(_ instance: Instance, for id: String) throws -> Bool {
        let output = try call(instance, devicePath(id) + "/share", "org.freedesktop.DBus.Introspectable.Introspect")
        return strings(output).first?.contains("<interface name=\"\(Self.shareInterface)\"") == true
    }

    /// Whether gdbus's output is a single true, such as `(<true>,)` or `(true,)`.
    private func bool(_ output: String) -> Bool {
        let compact = output.filter { !$0.isWhitespace }
        return compact == "(<true>,)" || compact == "(true,)"
    }

    /// The string literals in gdbus's output, in order: `('x',)`, `(['a', 'b'],)`, `(<'x'>,)`,
    /// single or double quoted, with GVariant's escapes undone.
    private func strings(_ output: String) -> [String] {
        var literals: [String] = []
        var iterator = output.makeIterator()
        while let character = iterator.next() {
            guard character == "'" || character == "\"" else { continue }
            let quote = character
            var literal = ""
            while let next = iterator.next(), next != quote {
                guard next == "\\", let escaped = iterator.next() else {
                    literal.append(next)
                    continue
                }
                switch escaped {
                case "n": literal.append("\n")
                case "t": literal.append("\t")
                case "r": literal.append("\r")
                case "u", "U":
                    var hex = ""
                    for _ in 0..<(escaped == "u" ? 4 : 8) { if let digit = iterator.next() { hex.append(digit) } }
                    if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) { literal.unicodeScalars.append(scalar) }
                default: literal.append(escaped)
                }
            }
            literals.append(literal)
        }
        return literals
    }

    /// `text` as a GVariant string literal, so gdbus takes it as it is.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
