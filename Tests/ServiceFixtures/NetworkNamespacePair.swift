import Foundation

/// Two network namespaces joined by a veth pair, as two hosts on one link: `a` is 10.78.0.1,
/// `b` 10.78.0.2, each with its own loopback. Made with `ip` (needs root); removed, with
/// anything still running inside, by ``remove()``.
public final class NetworkNamespacePair {
    public let a: String
    public let b: String
    public let addressA = "10.78.0.1"
    public let addressB = "10.78.0.2"
    /// The veth pair's ends in `a` and `b`.
    private let vethA: String
    private let vethB: String
    private var removed = false

    /// Why the namespaces cannot be made here, or nil.
    public static var missingRequirement: String? {
        guard getuid() == 0 else { return "network namespaces need root" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else { return "ip is missing (Debian package iproute2)" }
        return nil
    }

    public init(prefix: String = "baton-docs") throws {
        a = "\(prefix)-a"
        b = "\(prefix)-b"
        NamespaceCommands.delete([a, b])
        let veth = "\(prefix.prefix(8))-va"
        let peer = "\(prefix.prefix(8))-vb"
        vethA = veth
        vethB = peer
        let steps: [[String]] = [
            ["netns", "add", a], ["netns", "add", b],
            ["link", "add", veth, "type", "veth", "peer", "name", peer],
            ["link", "set", veth, "netns", a], ["link", "set", peer, "netns", b],
            ["-n", a, "link", "set", "lo", "up"], ["-n", b, "link", "set", "lo", "up"],
            ["-n", a, "addr", "add", "\(addressA)/24", "dev", veth], ["-n", b, "addr", "add", "\(addressB)/24", "dev", peer],
            ["-n", a, "link", "set", veth, "up"], ["-n", b, "link", "set", peer, "up"],
        ]
        for step in steps {
            let status = NamespaceCommands.ip(step)
            guard status == 0 else {
                NamespaceCommands.delete([a, b])
                throw FixtureError("ip \(step.joined(separator: " ")) failed with status \(status)")
            }
        }
    }

    /// `arguments` as a command run inside namespace `namespace` (`ip netns exec`).
    public func command(in namespace: String, _ executable: String, _ arguments: [String]) -> (URL, [String]) {
        (URL(fileURLWithPath: "/usr/sbin/ip"), ["netns", "exec", namespace, executable] + arguments)
    }

    /// Takes `b`'s end of the link down: from then on what either host sends the other is
    /// lost without a word (no FIN, no RST, no ICMP), as when `b`'s machine is switched off.
    public func cutB() throws {
        let status = NamespaceCommands.ip(["-n", b, "link", "set", vethB, "down"])
        guard status == 0 else { throw FixtureError("ip -n \(b) link set \(vethB) down failed with status \(status)") }
    }

    /// Makes `b` vanish without a word while the link stays up: `b`'s end loses its address, so
    /// what `a` sends it is dropped there unanswered (no RST, no ICMP), and `a`'s own network does
    /// not change (``cutB()`` takes the link down, which `a` sees as its carrier lost).
    public func silenceB() throws {
        try ip(["-n", b, "addr", "flush", "dev", vethB])
    }

    /// Takes `b`'s end of the link up again after ``cutB()``.
    public func restoreB() throws {
        try ip(["-n", b, "link", "set", vethB, "up"])
    }

    /// Takes `a`'s end of the link down (`up` false) or up.
    public func setA(up: Bool) throws {
        try ip(["-n", a, "link", "set", vethA, up ? "up" : "down"])
    }

    /// Gives `a`'s end of the link `address` (in a /24) in place of the ones it had, as when
    /// the device joins another network.
    public func readdressA(_ address: String) throws {
        try ip(["-n", a, "addr", "flush", "dev", vethA])
        try ip(["-n", a, "addr", "add", "\(address)/24", "dev", vethA])
    }

    private func ip(_ arguments: [String]) throws {
        let status = NamespaceCommands.ip(arguments)
        guard status == 0 else { throw FixtureError("ip \(arguments.joined(separator: " ")) failed with status \(status)") }
    }

    /// Stops what runs inside and removes both namespaces (and with them the veth pair).
    public func remove() {
        guard !removed else { return }
        removed = true
        NamespaceCommands.delete([a, b])
    }

    deinit {
        remove()
    }
}

/// The `ip` commands the namespace fixtures share.
enum NamespaceCommands {
    /// Kills what runs in each namespace named, and deletes it.
    static func delete(_ names: [String]) {
        for name in names {
            let pids = Process()
            pids.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            pids.arguments = ["netns", "pids", name]
            let output = Pipe()
            pids.standardOutput = output
            pids.standardError = FileHandle.nullDevice
            if (try? pids.run()) != nil {
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                pids.waitUntilExit()
                for pid in text.split(whereSeparator: \.isNewline).compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            }
            _ = ip(["netns", "delete", name])
        }
    }

    /// Runs `ip` with `arguments`; its exit status.
    @discardableResult
    static func ip(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
