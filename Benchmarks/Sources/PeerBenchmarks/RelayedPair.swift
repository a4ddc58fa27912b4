import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// Two batonds paired directly, then linked only through a relay, on loopback without root.
///
/// They pair on one pair of loopback addresses, then are restarted on another, with the relay
/// (``link(a:b:)``). Each dials the other where it last saw it (A saw B's source address,
/// 127.0.0.1, as B dialed it): the other no longer listens there, so those dials fail and the
/// two link through the relay. Through the relay, each also dials the other's last host on
/// the port its relayed hello names, so that a direct link can take over: the other does not
/// listen on that host either, so the link stays the relay's. Each measurement checks that it
/// is (``requireRelayed(_:a:b:)``): ListDevices names the relay address the link runs
/// through, and neither batond has logged a new link since.
@MainActor
final class RelayedPair {
    /// Where the two listen while pairing, then while linked through the relay.
    static let pairingHosts = (a: "127.77.0.4", b: "127.77.0.5")
    static let relayedHosts = (a: "127.77.0.6", b: "127.77.0.7")

    let a: Device
    let b: Device
    private let batond: String
    private let busA: BusConnection
    private let busB: BusConnection
    private var idA = ""
    private var idB = ""
    /// The links each batond had logged when the current one was checked.
    private var linksLogged = (a: 0, b: 0)

    init(batond: String) throws {
        self.batond = batond
        a = try Device(name: "relay-a")
        do {
            b = try Device(name: "relay-b")
        } catch {
            a.stop()
            throw error
        }
        do {
            busA = try BusConnection.bus(at: a.address)
            busB = try BusConnection.bus(at: b.address)
        } catch {
            a.stop()
            b.stop()
            throw error
        }
    }

    func stop() {
        a.stop()
        b.stop()
    }

    /// Starts the two, linked directly, and pairs them.
    func startPaired() async throws {
        try a.startBatond(batond, arguments: ["--name", "alpha"], logLevel: "debug", listen: "\(Self.pairingHosts.a):0")
        let statusA = try await batondStatus(of: busA)
        try b.startBatond(batond, arguments: ["--name", "beta", "--peer", statusA.listen], logLevel: "debug",
                          listen: "\(Self.pairingHosts.b):0")
        let statusB = try await batondStatus(of: busB)
        (idA, idB) = (statusA.id, statusB.id)
        try await waitFor("the direct link between A and B") { await record(of: idA, on: busB)?["connected"]?.bool == true }
        try await pair(requester: busB, responder: busA, responderID: idA, requesterID: idB)
        try await waitFor("A and B paired") {
            let seenByB = await record(of: idA, on: busB)
            let seenByA = await record(of: idB, on: busA)
            return seenByB?["paired"]?.bool == true && seenByA?["paired"]?.bool == true
        }
    }

    /// Restarts the two on their relayed addresses, A reaching the relay at `relayA` and B
    /// at `relayB`, and waits for their link through it.
    func link(a relayA: RelayAddress, b relayB: RelayAddress) async throws {
        a.stopBatond()
        b.stopBatond()
        try a.startBatond(batond, arguments: ["--name", "alpha", "--relay", relayA.description], logLevel: "debug",
                          listen: "\(Self.relayedHosts.a):0")
        try b.startBatond(batond, arguments: ["--name", "beta", "--relay", relayB.description], logLevel: "debug",
                          listen: "\(Self.relayedHosts.b):0")
        let expected = (a: "\(relayA.host):\(relayA.port)", b: "\(relayB.host):\(relayB.port)")
        try await waitFor("A and B linked through the relay", timeout: 30) {
            let seenByA = await record(of: idB, on: busA)
            let seenByB = await record(of: idA, on: busB)
            return seenByA?["relay"]?.string == expected.a && seenByB?["relay"]?.string == expected.b
        }
        // Both may have dialed through the relay at once: one of the two links goes.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        linksLogged = (linksLogged(in: a), linksLogged(in: b))
        try await requireRelayed("once linked", a: expected.a, b: expected.b)
    }

    /// Fails unless the link the two had when ``link(a:b:)`` returned is still up and runs
    /// through the relay, reached at `a` (A's `host:port` for it) and `b` (B's).
    func requireRelayed(_ when: String, a expectedA: String, b expectedB: String) async throws {
        let seenByA = await record(of: idB, on: busA)
        let seenByB = await record(of: idA, on: busB)
        func describe(_ record: [String: BusValue]?) -> String {
            "connected \(record?["connected"]?.bool ?? false), relay \(record?["relay"]?.string ?? "none")"
        }
        guard seenByA?["connected"]?.bool == true, seenByA?["relay"]?.string == expectedA,
              seenByB?["connected"]?.bool == true, seenByB?["relay"]?.string == expectedB else {
            throw BenchmarkFailure("\(when), the link between A and B is not the relay's (A sees B \(describe(seenByA)), "
                                   + "expected relay \(expectedA); B sees A \(describe(seenByB)), expected relay \(expectedB)): "
                                   + "these would not be relay figures")
        }
        let now = (linksLogged(in: a), linksLogged(in: b))
        guard now == linksLogged else {
            throw BenchmarkFailure("\(when), the link through the relay was replaced (links logged by A: \(linksLogged.a) -> \(now.0), "
                                   + "by B: \(linksLogged.b) -> \(now.1)): the figures may include a reconnection")
        }
    }

    /// How many links `device`'s batond has logged (`linked with NAME (ID) at ADDRESS`).
    private func linksLogged(in device: Device) -> Int {
        device.log.split(separator: "\n").count { $0.contains("linked with ") }
    }

    /// The ListDevices record of `id` on `bus`; `nil` also while that batond does not answer.
    private func record(of id: String, on bus: BusConnection) async -> [String: BusValue]? {
        let devices = (try? await daemonCall(bus, "ListDevices"))?.first?.dictionaries ?? []
        return devices.first { $0["id"]?.string == id }
    }
}
