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
    /// Proportional memory (`Pss`): its private pages, and each shared page divided by the
    /// number of processes mapping it, in KiB.
    let proportionalKiB: Int
    /// Resident memory, shared libraries included, in KiB.
    let residentKiB: Int
    /// Context switches of all its threads per second: each is a wake-up from a wait.
    let wakeupsPerSecond: Double
    /// The same per thread name (`/proc/PID/task/TID/comm`), threads of one name added up.
    let wakeupsByThread: [String: Double]

    /// The threads that woke, most first, as `name 1.00, other 0.03`.
    var threadsThatWoke: String {
        wakeupsByThread.filter { $0.value > 0 }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { String(format: "%@ %.2f", $0.key, $0.value) }.joined(separator: ", ")
    }
}

/// Watches process `pid` for `seconds` while it is left alone.
@MainActor
func measureAtRest(pid: Int32, seconds: Double) async throws -> RestFigures {
    try await measureAtRest(pids: [pid], seconds: seconds)[0]
}

/// Watches the processes `pids` over the same `seconds` while they are left alone: their
/// figures, in the order of `pids`.
@MainActor
func measureAtRest(pids: [Int32], seconds: Double) async throws -> [RestFigures] {
    let before = pids.map(contextSwitches(of:))
    try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    return zip(pids, before).map { pid, before in
        let after = contextSwitches(of: pid)
        // Per thread, so that a thread ending meanwhile cannot make the count go down: one that
        // began counts from zero, and one that ended is not counted (its last switches go with it).
        var byThread: [String: Double] = [:]
        for (thread, count) in after {
            let name = procFile("/proc/\(pid)/task/\(thread)/comm").trimmingCharacters(in: .whitespacesAndNewlines)
            byThread[name, default: 0] += Double(count - (before[thread] ?? 0)) / seconds
        }
        let woken = after.reduce(0) { total, thread in total + thread.value - (before[thread.key] ?? 0) }
        let rollup = procFile("/proc/\(pid)/smaps_rollup")
        let status = procFile("/proc/\(pid)/status")
        return RestFigures(anonymousKiB: procNumber("RssAnon", in: status),
                           privateKiB: procNumber("Private_Clean", in: rollup) + procNumber("Private_Dirty", in: rollup),
                           proportionalKiB: procNumber("Pss", in: rollup),
                           residentKiB: procNumber("Rss", in: rollup),
                           wakeupsPerSecond: Double(woken) / seconds, wakeupsByThread: byThread)
    }
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

/// A release batond as the hub of paired batonds on loopback, each a device of its own (its
/// bus, identity and pairings) that dials the hub and is paired with it as a person would.
@MainActor
final class PairedHub {
    /// One paired device: its bus and device id.
    struct Peer {
        let device: Device
        let bus: BusConnection
        let id: String
    }

    let batond: String
    let hub: Device
    let hubBus: BusConnection
    let hubID: String
    let hubListen: String
    private(set) var peers: [Peer] = []

    /// Starts the hub alone: no peers, no discovery.
    init(batond: String) async throws {
        self.batond = batond
        hub = try Device(name: "hub")
        do {
            try hub.startBatond(batond, arguments: ["--name", "hub"])
            hubBus = try BusConnection.bus(at: hub.address)
            (hubID, hubListen) = try await batondStatus(of: hubBus)
        } catch {
            hub.stop()
            throw error
        }
    }

    /// The hub batond's process id.
    func hubPID() throws -> Int32 {
        guard let pid = hub.batond?.processIdentifier, hub.batond?.isRunning == true else {
            throw BenchmarkFailure("the hub batond is not running")
        }
        return pid
    }

    /// Starts and pairs peers until the hub has `count`.
    func addPeers(upTo count: Int) async throws {
        while peers.count < count {
            let index = peers.count + 1
            let peer = try Device(name: "peer\(index)")
            do {
                try peer.startBatond(batond, arguments: ["--name", "peer\(index)", "--peer", hubListen])
            } catch {
                peer.stop()
                throw error
            }
            let peerBus = try BusConnection.bus(at: peer.address)
            peers.append(Peer(device: peer, bus: peerBus, id: try await batondStatus(of: peerBus).id))
            let peerID = peers[peers.count - 1].id
            try await waitFor("peer \(index) linked with the hub") {
                try await self.listedByHub(peerID) { $0["connected"]?.bool == true }
            }
            try await pair(requester: hubBus, responder: peerBus, responderID: peerID, requesterID: hubID)
            try await waitFor("peer \(index) paired with the hub") {
                try await self.listedByHub(peerID) { $0["paired"]?.bool == true && $0["connected"]?.bool == true }
            }
        }
    }

    /// Stops the batonds of all peers after the first `count`, and waits until the hub lists
    /// them as not connected (each closed its link as it stopped).
    func keepPeers(_ count: Int) async throws {
        let gone = peers.dropFirst(count)
        for peer in gone { peer.device.stop() }
        peers.removeLast(gone.count)
        for peer in gone {
            try await waitFor("the hub to see \(peer.device.root.lastPathComponent) gone") {
                try await !self.listedByHub(peer.id) { $0["connected"]?.bool == true }
            }
        }
    }

    /// Whether the hub lists device `id` with a record `matching`.
    private func listedByHub(_ id: String, matching: ([String: BusValue]) -> Bool) async throws -> Bool {
        let devices = (try? await daemonCall(hubBus, "ListDevices"))?.first?.dictionaries ?? []
        return devices.contains { $0["id"]?.string == id && matching($0) }
    }

    func stop() {
        hub.stop()
        for peer in peers { peer.device.stop() }
        peers = []
    }
}
