import Foundation

/// Two devices on two home networks, each behind its own router, with "the internet" between
/// them: five network namespaces in a row, `PREFIX-a` — `PREFIX-ra` — `PREFIX-i` — `PREFIX-rb`
/// — `PREFIX-b`. Device A is 192.168.10.2 behind router A (198.51.100.2 outside), device B
/// 192.168.20.2 behind router B (203.0.113.2 outside); the internet namespace holds
/// ``serverAddress`` (192.0.2.1), where a test runs what both reach (a relay server).
///
/// The network starts ``open()``: the internet routes to both home networks, so the devices
/// reach each other directly (as on one network, to pair). ``closeNAT()`` makes each router a
/// home router: it masquerades its network's connections out (iptables `MASQUERADE`) and lets
/// nothing in that its network did not start, and the internet no longer routes to the home
/// networks. Made with `ip` and `iptables` (needs root); removed, with anything running
/// inside, by ``remove()``.
public final class NATNetwork: TwoHostNetwork {
    public let a: String
    public let b: String
    public let routerA: String
    public let routerB: String
    public let internet: String
    public let addressA = "192.168.10.2"
    public let addressB = "192.168.20.2"
    /// The routers' addresses on the internet: what the internet sees of each device.
    public let outsideA = "198.51.100.2"
    public let outsideB = "203.0.113.2"
    /// An address in the internet namespace both devices reach, for a server.
    public let serverAddress = "192.0.2.1"
    private var removed = false
    /// Whether the routers are home routers now (``closeNAT()``).
    private var isClosed = false
    private let names: (wanA: String, wanB: String, lanA: String, lanB: String)

    /// Why the network cannot be made here, or nil.
    public static var missingRequirement: String? {
        if let missing = NetworkNamespacePair.missingRequirement { return missing }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/iptables") else {
            return "iptables is missing (Debian package iptables; scripts/setup.sh installs it)"
        }
        return nil
    }

    public init(prefix: String = "baton-nat") throws {
        a = "\(prefix)-a"
        b = "\(prefix)-b"
        routerA = "\(prefix)-ra"
        routerB = "\(prefix)-rb"
        internet = "\(prefix)-i"
        let short = String(prefix.prefix(8))
        names = (wanA: "\(short)-wa", wanB: "\(short)-wb", lanA: "\(short)-la", lanB: "\(short)-lb")
        NamespaceCommands.delete(all)
        var steps: [[String]] = all.map { ["netns", "add", $0] } + all.map { ["-n", $0, "link", "set", "lo", "up"] }
        // Each link: a veth pair, one end in each namespace, with an address at each end.
        let links: [(String, String, String, String, String)] = [
            (a, "192.168.10.2/24", routerA, "192.168.10.1/24", names.lanA),
            (routerA, "198.51.100.2/24", internet, "198.51.100.1/24", names.wanA),
            (routerB, "203.0.113.2/24", internet, "203.0.113.1/24", names.wanB),
            (b, "192.168.20.2/24", routerB, "192.168.20.1/24", names.lanB),
        ]
        for (left, leftAddress, right, rightAddress, name) in links {
            steps += [
                ["link", "add", "\(name)0", "type", "veth", "peer", "name", "\(name)1"],
                ["link", "set", "\(name)0", "netns", left], ["link", "set", "\(name)1", "netns", right],
                ["-n", left, "addr", "add", leftAddress, "dev", "\(name)0"], ["-n", right, "addr", "add", rightAddress, "dev", "\(name)1"],
                ["-n", left, "link", "set", "\(name)0", "up"], ["-n", right, "link", "set", "\(name)1", "up"],
            ]
        }
        steps += [
            ["-n", internet, "addr", "add", "\(serverAddress)/32", "dev", "lo"],
            ["-n", a, "route", "add", "default", "via", "192.168.10.1"],
            ["-n", b, "route", "add", "default", "via", "192.168.20.1"],
            ["-n", routerA, "route", "add", "default", "via", "198.51.100.1"],
            ["-n", routerB, "route", "add", "default", "via", "203.0.113.1"],
        ]
        steps += [routerA, internet, routerB].map { ["netns", "exec", $0, "sysctl", "-qw", "net.ipv4.ip_forward=1"] }
        do {
            try run(steps)
            try open()
        } catch {
            NamespaceCommands.delete(all)
            throw error
        }
    }

    private var all: [String] { [a, routerA, internet, routerB, b] }

    /// No NAT: the internet routes to both home networks, and the routers let everything
    /// through, so each device reaches the other at its own address.
    public func open() throws {
        for (router, lan) in [(routerA, "192.168.10.0/24"), (routerB, "192.168.20.0/24")] {
            try run([["netns", "exec", router, "iptables", "-t", "nat", "-F"], ["netns", "exec", router, "iptables", "-F"],
                     ["netns", "exec", router, "iptables", "-P", "FORWARD", "ACCEPT"]])
            try run([["-n", internet, "route", "replace", lan, "via", router == routerA ? outsideA : outsideB]])
        }
        isClosed = false
    }

    /// Home routers: each masquerades its network's connections out of its internet link
    /// and forwards inward only what belongs to them (no inbound connections); the internet
    /// forgets the home networks.
    public func closeNAT() throws {
        for (router, lan, wan) in [(routerA, names.lanA + "1", names.wanA + "0"), (routerB, names.lanB + "1", names.wanB + "0")] {
            try run([
                ["netns", "exec", router, "iptables", "-P", "FORWARD", "DROP"],
                ["netns", "exec", router, "iptables", "-A", "FORWARD", "-i", lan, "-o", wan, "-j", "ACCEPT"],
                ["netns", "exec", router, "iptables", "-A", "FORWARD", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
                ["netns", "exec", router, "iptables", "-t", "nat", "-A", "POSTROUTING", "-o", wan, "-j", "MASQUERADE"],
            ])
        }
        try run([["-n", internet, "route", "del", "192.168.10.0/24"], ["-n", internet, "route", "del", "192.168.20.0/24"]])
        isClosed = true
    }

    /// Whether a TCP connection from namespace `namespace` to `host:port` is accepted within 3 s.
    public func canConnect(from namespace: String, to host: String, port: Int) -> Bool {
        NamespaceCommands.ip(["netns", "exec", namespace, "timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/\(host)/\(port)"]) == 0
    }

    /// Whether a TCP connection from the internet reaches `host:port` in a home network even
    /// when the internet routes there (a neighbour on the router's outside link would): only
    /// through a router that lets it in.
    public func canReachFromOutside(_ host: String, port: Int) -> Bool {
        let routes = [("192.168.10.0/24", outsideA), ("192.168.20.0/24", outsideB)]
        for (lan, router) in routes { _ = NamespaceCommands.ip(["-n", internet, "route", "replace", lan, "via", router]) }
        defer { if isClosed { for (lan, _) in routes { _ = NamespaceCommands.ip(["-n", internet, "route", "del", lan]) } } }
        return canConnect(from: internet, to: host, port: port)
    }

    /// The remote addresses of the TCP connections established to `port` in namespace
    /// `namespace` (`ss`): whom a server there sees.
    public func peers(in namespace: String, ofPort port: Int) -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace, "ss", "-Htn", "state", "established", "( sport = :\(port) )"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Each line: Recv-Q Send-Q Local:Port Peer:Port.
        return text.split(separator: "\n").compactMap { line in
            line.split(separator: " ").last.map { String($0.split(separator: ":").dropLast().joined(separator: ":")) }
        }
    }

    private func run(_ steps: [[String]]) throws {
        for step in steps {
            let status = NamespaceCommands.ip(step)
            guard status == 0 else { throw FixtureError("ip \(step.joined(separator: " ")) failed with status \(status)") }
        }
    }

    public func remove() {
        guard !removed else { return }
        removed = true
        NamespaceCommands.delete(all)
    }

    deinit {
        remove()
    }
}
