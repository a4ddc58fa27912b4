import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// The relay figures: offer propagation and continuation latency between two batonds linked
/// only through a private strelaysrv, beside the floor through the same relay; then the same
/// with 50 ms added one way on each device's path to the relay (+100 ms each way end to end).
///
///   127.77.0.1:PORT   the relay; its invitations name no address, so each device joins
///                     sessions where it reaches the relay
///   127.77.0.2:PORT   A's way to it, 127.77.0.3:PORT B's: forwarders standing for each
///                     device's network, holding each chunk 50 ms each way (netem would,
///                     but this machine's kernel has no sch_netem: `tc qdisc add … netem`
///                     says "Specified qdisc kind is unknown")
///   127.77.0.4, .5    where A and B listen while they pair; .6, .7 afterwards (RelayedPair)
///
/// No network namespaces, no root. The floor's two ends reach the relay as A and B do.
@MainActor
func runRelay(batond: String) async throws {
    print("")
    guard PrivateRelay.executable != nil else {
        print("relay figures skipped: strelaysrv is missing (scripts/setup.sh unpacks Debian's syncthing-relaysrv into .build/strelaysrv)")
        return
    }
    let hosts = (relay: "127.77.0.1", a: "127.77.0.2", b: "127.77.0.3")
    let addedDelay = 50
    let port = try Loopback.freePort(on: [hosts.relay, hosts.a, hosts.b])
    let relay = try PrivateRelay(host: hosts.relay, port: port)
    defer { relay.stop() }
    let pair = try RelayedPair(batond: batond)
    defer { pair.stop() }
    try await pair.startPaired()

    // Both reach the relay itself.
    let direct = try relay.address(reachedAt: hosts.relay)
    let plain = try await measureRelayed(pair, a: direct, b: direct)

    // Each through its own network to the relay, 50 ms each way.
    var forwarders: [DelayForwarder] = []
    defer { forwarders.forEach { $0.stop() } }
    for host in [hosts.a, hosts.b] {
        forwarders.append(try DelayForwarder(host: host, port: port, targetHost: hosts.relay, targetPort: port,
                                             delay: Double(addedDelay) / 1000))
    }
    let delayed = try await measureRelayed(pair, a: try relay.address(reachedAt: hosts.a), b: try relay.address(reachedAt: hosts.b))

    print("relay figures: offer propagation and continuation between two batonds linked only through a private strelaysrv")
    print("(\(hosts.relay):\(port), its invitations naming no address), the link checked to be the relay's before and after, \(samples)")
    print("samples each; beside the floor's TLS request/response (same messages, same payload) through the same relay, on a new")
    print("session (TLS to the relay, ask it for the device, both ends join the session, Baton's handshake inside, one round")
    print("trip: a batond's dial, the far end joined already) and on an open one (what a batond's link through the relay is)")
    print("")
    printRelayFigures(plain, label: "relay", delayed: false)
    print("")
    print("+\(addedDelay) ms each side, each way: userspace forwarders (\(hosts.a) for A, \(hosts.b) for B) holding each chunk"
          + " \(addedDelay) ms (this kernel has no netem)")
    printRelayFigures(delayed, label: "relay +\(addedDelay) ms each side", delayed: true)
    print("  the fewest a continuation can make over the link is 1 round trip (the fetch; its D-Bus calls stay on each device):")
    print("  1x the open-session floor, and each further round trip would add 1x: target < 2x")
}

/// One set of relay figures: the handoff between A and B and the floor between two ends that
/// reach the relay as they do.
struct RelayFigures {
    let propagation: [Double]
    let continuation: [Double]
    /// The floor's samples, and how many of its dials strelaysrv's join race made again.
    let floor: (cold: [Double], warm: [Double], retried: Int)
}

/// Links the pair through the relay (A reaching it at `a`, B at `b`) and measures the handoff
/// between them, failing unless their link stays the relay's throughout; then the floor.
@MainActor
func measureRelayed(_ pair: RelayedPair, a: RelayAddress, b: RelayAddress) async throws -> RelayFigures {
    try await pair.link(a: a, b: b)
    let (expectedA, expectedB) = ("\(a.host):\(a.port)", "\(b.host):\(b.port)")
    try await pair.requireRelayed("before measuring", a: expectedA, b: expectedB)
    // The batonds were restarted: the apps are played anew, on fresh bus connections.
    let handoff = try await measureHandoff(busA: try BusConnection.bus(at: pair.a.address), busB: try BusConnection.bus(at: pair.b.address),
                                           installingOn: pair.b, titled: "relayed")
    try await pair.requireRelayed("after measuring", a: expectedA, b: expectedB)
    let floor = try await measureRelayFloor(serverRelay: a, clientRelay: b, payloadSize: handoff.origin.payload.count)
    return RelayFigures(propagation: handoff.propagation, continuation: handoff.continuation, floor: floor)
}

/// Prints `figures` in the style of the figures above, each beside its floor: the open
/// session, which is what a batond's link through the relay is. Without added delay, offer
/// propagation has its target (< 100 ms); with it, the continuation (< 2x the floor).
@MainActor
func printRelayFigures(_ figures: RelayFigures, label: String, delayed: Bool) {
    let width = 68
    let warm = median(figures.floor.warm)
    func line(_ name: String, _ values: [Double], _ tail: String = "") {
        print("\(name.padding(toLength: width, withPad: " ", startingAt: 0))\(milliseconds(median(values)))  \(milliseconds(percentile90(values)))\(tail)")
    }
    func verdict(_ pass: Bool) -> String { pass ? "PASS" : "MISS" }
    print("".padding(toLength: width, withPad: " ", startingAt: 0) + "    median         p90")
    let propagation = median(figures.propagation)
    line("\(label): offer propagation (publish on A -> on B)", figures.propagation,
         String(format: "   / open-session floor: %.2fx", propagation / warm)
         + (delayed ? "   (one way: 0.5x at the fewest)" : "   target < 100 ms: \(verdict(propagation < 0.1))"))
    let continuation = median(figures.continuation) / warm
    line("\(label): continuation (continue on B -> restored)", figures.continuation,
         String(format: "   / open-session floor: %.2fx", continuation) + (delayed ? "   target < 2x: \(verdict(continuation < 2))" : ""))
    line("\(label) floor: TLS round trip, new session", figures.floor.cold,
         figures.floor.retried > 0
            ? "   (\(figures.floor.retried) \(figures.floor.retried == 1 ? "dial" : "dials") made again: strelaysrv's join race)" : "")
    line("\(label) floor: TLS round trip, open session", figures.floor.warm)
}
