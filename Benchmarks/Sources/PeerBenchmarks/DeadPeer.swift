import BatonBus
import BatonGLib
import Foundation

/// Two network namespaces joined by a veth pair, as two hosts on one link: `a` is
/// `<subnet>.1`, `b` `<subnet>.2`. Made with `ip` (needs root); removed by ``remove()``.
final class NamespacePair {
    static let ip = "/usr/sbin/ip"
    let a: String
    let b: String
    let addressA: String
    let addressB: String
    private let vethA: String
    private let vethB: String

    /// Why namespaces cannot be made here, or nil.
    static var missingRequirement: String? {
        guard getuid() == 0 else { return "network namespaces need root" }
        return FileManager.default.isExecutableFile(atPath: ip) ? nil : "ip is missing (Debian package iproute2)"
    }

    /// - Parameters:
    ///   - name: the namespaces' names are `baton-bench-<name>-a` and `-b`.
    ///   - tag: the veth pair's names are `bb<tag>-va` and `-vb` (at most 15 characters).
    ///   - subnet: the first three bytes of the link's /24, such as `10.79.0`.
    init(name: String = "gone", tag: String = "gone", subnet: String = "10.79.0") throws {
        a = "baton-bench-\(name)-a"
        b = "baton-bench-\(name)-b"
        addressA = "\(subnet).1"
        addressB = "\(subnet).2"
        vethA = "bb\(tag)-va"
        vethB = "bb\(tag)-vb"
        remove()
        let steps: [[String]] = [
            ["netns", "add", a], ["netns", "add", b],
            ["link", "add", vethA, "type", "veth", "peer", "name", vethB],
            ["link", "set", vethA, "netns", a], ["link", "set", vethB, "netns", b],
            ["-n", a, "link", "set", "lo", "up"], ["-n", b, "link", "set", "lo", "up"],
            ["-n", a, "addr", "add", "\(addressA)/24", "dev", vethA], ["-n", b, "addr", "add", "\(addressB)/24", "dev", vethB],
            ["-n", a, "link", "set", vethA, "up"], ["-n", b, "link", "set", vethB, "up"],
        ]
        for step in steps where Self.run(step) != 0 {
            remove()
            throw BenchmarkFailure("ip \(step.joined(separator: " ")) failed")
        }
    }

    /// Takes `b`'s address away while the link stays up: what `a` sends is dropped there
    /// unanswered (no FIN, no RST, no ICMP), as when `b`'s machine is switched off, and `a`'s own
    /// network does not change (taking the link down would: a lost carrier, which makes batond
    /// check its links at once).
    func cutB() throws {
        guard Self.run(["-n", b, "addr", "flush", "dev", vethB]) == 0 else { throw BenchmarkFailure("cannot empty \(vethB)") }
    }

    /// A default route over each end of the link: without one, a broadcast to 255.255.255.255
    /// (KDE Connect's announcement) fails with ENETUNREACH.
    func routeBroadcasts() throws {
        for (namespace, veth) in [(a, vethA), (b, vethB)] where Self.run(["-n", namespace, "route", "replace", "default", "dev", veth]) != 0 {
            throw BenchmarkFailure("cannot route broadcasts in \(namespace)")
        }
    }

    /// Deletes both namespaces (and with them the veth pair); what still runs inside must be stopped first.
    func remove() {
        for name in [a, b] { Self.run(["netns", "delete", name]) }
    }

    @discardableResult
    private static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Seconds a release batond, with its default settings, takes to list a paired peer as not
/// connected once the peer vanished without a word: the two batonds in two network namespaces,
/// paired, the link left quiet (and the namespaces' own network changes over: each makes the hub
/// check its links at once) for 4 s, then the peer's batond frozen and its address taken away
/// (no FIN, no RST).
@MainActor
func measureDeadPeer(batond: String) async throws -> Double {
    let namespaces = try NamespacePair()
    let hub = try Device(name: "gone-hub")
    let peer = try Device(name: "gone-peer")
    defer {
        hub.stop()
        peer.stop()
        namespaces.remove()
    }
    try hub.startBatond(batond, arguments: ["--name", "hub"], listen: "\(namespaces.addressA):0", namespace: namespaces.a)
    let hubBus = try BusConnection.bus(at: hub.address)
    let hubStatus = try await batondStatus(of: hubBus)
    try peer.startBatond(batond, arguments: ["--name", "peer", "--peer", hubStatus.listen], listen: "\(namespaces.addressB):0",
                         namespace: namespaces.b)
    let peerBus = try BusConnection.bus(at: peer.address)
    let peerStatus = try await batondStatus(of: peerBus)
    func peerIsConnected() async -> Bool {
        let devices = (try? await daemonCall(hubBus, "ListDevices"))?.first?.dictionaries ?? []
        return devices.contains { $0["id"]?.string == peerStatus.id && $0["connected"]?.bool == true }
    }
    try await waitFor("the peer linked with the hub") { await peerIsConnected() }
    try await pair(requester: hubBus, responder: peerBus, responderID: peerStatus.id, requesterID: hubStatus.id)
    try await waitFor("the peer paired with the hub") {
        let devices = (try? await daemonCall(hubBus, "ListDevices"))?.first?.dictionaries ?? []
        return devices.contains { $0["id"]?.string == peerStatus.id && $0["paired"]?.bool == true && $0["connected"]?.bool == true }
    }
    try await Task.sleep(nanoseconds: 4_000_000_000)
    if let process = peer.batond { kill(process.processIdentifier, SIGSTOP) }
    defer { if let process = peer.batond { kill(process.processIdentifier, SIGCONT) } }
    try namespaces.cutB()
    let cut = Date()
    try await waitFor("the hub to notice that the peer is gone", timeout: 120) {
        try await Task.sleep(nanoseconds: 100_000_000)
        return await !peerIsConnected()
    }
    return Date().timeIntervalSince(cut)
}
