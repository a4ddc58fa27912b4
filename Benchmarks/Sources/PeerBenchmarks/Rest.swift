import BatonGLib
import Foundation

/// A process at rest: its memory and how often its threads wake.
struct RestFigures {
    /// Anonymous resident memory (heap, stacks: `RssAnon`), in KiB: the memory the process
    /// itself made, which the target counts.
    let anonymousKiB: Int
    /// Private memory (clean and dirty pages no other process maps, the libraries' own
    /// relocated data included), in KiB.
    let privateKiB: Int
    /// Resident memory, shared libraries included, in KiB.
    let residentKiB: Int
    /// Context switches of all its threads per second: each is a wake-up from a wait.
    let wakeupsPerSecond: Double
}

/// Watches process `pid` for `seconds` while it is left alone.
@MainActor
func measureAtRest(pid: Int32, seconds: Double) async throws -> RestFigures {
    let before = contextSwitches(of: pid)
    try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    let after = contextSwitches(of: pid)
    // Per thread, so that a thread ending meanwhile cannot make the count go down: one that
    // began counts from zero, and one that ended is not counted (its last switches go with it).
    let woken = after.reduce(0) { total, thread in total + thread.value - (before[thread.key] ?? 0) }
    let rollup = procFile("/proc/\(pid)/smaps_rollup")
    let status = procFile("/proc/\(pid)/status")
    return RestFigures(anonymousKiB: procNumber("RssAnon", in: status),
                       privateKiB: procNumber("Private_Clean", in: rollup) + procNumber("Private_Dirty", in: rollup),
                       residentKiB: procNumber("Rss", in: rollup),
                       wakeupsPerSecond: Double(woken) / seconds)
}

/// The voluntary and involuntary context switches so far of each thread of `pid`, by thread id.
func contextSwitches(of pid: Int32) -> [String: Int] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var counts: [String: Int] = [:]
    for task in tasks {
        let status = procFile("/proc/\(pid)/task/\(task)/status")
        counts[task] = procNumber("voluntary_ctxt_switches", in: status) + procNumber("nonvoluntary_ctxt_switches", in: status)
    }
    return counts
}

/// A file under `/proc`, empty when it cannot be read (the process is gone).
func procFile(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

/// The number after `name:` in a `/proc` file of `name: number [unit]` lines, or 0.
func procNumber(_ name: String, in text: String) -> Int {
    text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
        .flatMap { line in Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") } ?? 0
}

/// A release batond at rest, alone (no peers, no discovery) and as the hub of `peers` paired
/// devices, each a batond of its own dialing it.
@MainActor
func measureRest(batond: String, peers count: Int, seconds: Double) async throws -> (alone: RestFigures, paired: RestFigures) {
    let hub = try Device(name: "hub")
    var peers: [Device] = []
    defer {
        hub.stop()
        for peer in peers { peer.stop() }
    }
    try hub.startBatond(batond, arguments: ["--name", "hub"])
    let hubBus = try BusConnection.bus(at: hub.address)
    let hubStatus = try await batondStatus(of: hubBus)
    try await Task.sleep(nanoseconds: 1_000_000_000)
    guard let hubPID = hub.batond?.processIdentifier else { throw BenchmarkFailure("the hub batond is not running") }
    let alone = try await measureAtRest(pid: hubPID, seconds: seconds)

    for index in 1...count {
        let peer = try Device(name: "peer\(index)")
        peers.append(peer)
        try peer.startBatond(batond, arguments: ["--name", "peer\(index)", "--peer", hubStatus.listen])
        let peerBus = try BusConnection.bus(at: peer.address)
        let peerStatus = try await batondStatus(of: peerBus)
        try await waitFor("peer \(index) linked with the hub") {
            let devices = (try? await daemonCall(hubBus, "ListDevices"))?.first?.dictionaries ?? []
            return devices.contains { $0["id"]?.string == peerStatus.id && $0["connected"]?.bool == true }
        }
        try await pair(requester: hubBus, responder: peerBus, responderID: peerStatus.id, requesterID: hubStatus.id)
        try await waitFor("peer \(index) paired with the hub") {
            let devices = (try? await daemonCall(hubBus, "ListDevices"))?.first?.dictionaries ?? []
            return devices.contains { $0["id"]?.string == peerStatus.id && $0["paired"]?.bool == true }
        }
    }
    try await Task.sleep(nanoseconds: 2_000_000_000)
    let paired = try await measureAtRest(pid: hubPID, seconds: seconds)
    return (alone, paired)
}
