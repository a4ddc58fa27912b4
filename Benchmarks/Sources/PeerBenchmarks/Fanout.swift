import Baton
import BatonBus
import BatonGLib
import Foundation

/// The times, per round, from `PublishCurrent` on the hub to its offer listed on its paired
/// peers: on the first to list it and on the last.
struct FanoutFigures {
    let peers: Int
    let first: [Double]
    let last: [Double]
}

/// Watches each peer's `ActivitiesChanged` and, after each, asks the peer for its list: the
/// offer titled ``title`` arrived at a peer at the last signal received before the first
/// answer listing it. batond emits the signal before it answers a later call, and the bus keeps
/// their order, so that signal is the offer's or a later one: a time never too early.
@MainActor
final class OfferArrivals {
    private let peers: [PairedHub.Peer]
    private var subscriptions: [UInt32] = []
    private var lastSignal: [Date?]
    /// The title of the offer awaited in this round; nil between rounds.
    private var title: String?
    private(set) var arrivals: [Date?]

    init(peers: [PairedHub.Peer]) {
        self.peers = peers
        lastSignal = Array(repeating: nil, count: peers.count)
        arrivals = Array(repeating: nil, count: peers.count)
        for (index, peer) in peers.enumerated() {
            subscriptions.append(peer.bus.subscribe(sender: nil, interface: BatonService.daemonInterface, member: "ActivitiesChanged",
                                                    path: BatonService.daemonPath) { [weak self] _, _ in
                self?.signalled(index)
            })
        }
    }

    /// Starts a round awaiting the offer titled `title`.
    func expect(_ title: String) {
        self.title = title
        arrivals = Array(repeating: nil, count: peers.count)
    }

    /// Ends the round.
    func finish() { title = nil }

    var allArrived: Bool { arrivals.allSatisfy { $0 != nil } }

    private func signalled(_ index: Int) {
        lastSignal[index] = Date()
        guard let title, arrivals[index] == nil else { return }
        peers[index].bus.call(BatonService.busName, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              method: "ListActivities", timeout: 5) { result in
            MainActor.assumeIsolated {
                guard title == self.title, self.arrivals[index] == nil,
                      let listing = try? result.get().first?.dictionaries,
                      listing.contains(where: { $0["title"]?.string == title }) else { return }
                self.arrivals[index] = self.lastSignal[index]
            }
        }
    }

    func stop() {
        for (peer, id) in zip(peers, subscriptions) { peer.bus.unsubscribe(id) }
        subscriptions = []
    }
}

/// Publishes `samples` offers (after 3 unmeasured) as the app registered on the hub's bus, and times each
/// until every peer of the hub lists it.
@MainActor
func measureFanout(hub: PairedHub, label: String) async throws -> FanoutFigures {
    let arrivals = OfferArrivals(peers: hub.peers)
    defer { arrivals.stop() }
    var first: [Double] = []
    var last: [Double] = []
    for index in 0..<(samples + 3) {
        let title = "\(label) \(index)"
        arrivals.expect(title)
        let start = Date()
        _ = try await daemonCall(hub.hubBus, "PublishCurrent", [.string("fanout-\(label)-\(index)"),
                                                                .dictionary(["type": .string(activityType), "title": .string(title)])])
        try await waitFor("offer \(title) on all \(hub.peers.count) peers", timeout: 5) { arrivals.allArrived }
        arrivals.finish()
        let times = arrivals.arrivals.compactMap { $0?.timeIntervalSince(start) }
        if index >= 3 {
            first.append(times.min() ?? 0)
            last.append(times.max() ?? 0)
        }
        // Lets the round's last signals and answers pass before the next.
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    return FanoutFigures(peers: hub.peers.count, first: first, last: last)
}

/// Offer fan-out on a hub with `peers` paired peers (the ones it has; more are paired first),
/// then again with one: both printed, against the target of at most 50 ms median to the last
/// of `peers`. The hub's peers after the first are stopped.
@MainActor
func runFanout(hub: PairedHub, peers count: Int) async throws {
    try await hub.addPeers(upTo: count)
    let origin = try await BenchApp(connection: hub.hubBus, appID: "org.bench.Origin")
    origin.payload = Array(try UserActivityPayload(activityType: activityType, title: "fanout",
                                                   userInfo: ["body": .string(draftText)]).encoded())
    let many = try await measureFanout(hub: hub, label: "fanout \(count)")
    try await hub.keepPeers(1)
    let single = try await measureFanout(hub: hub, label: "fanout 1")
    withExtendedLifetime(origin) {}
    print("")
    print("offer fan-out: PublishCurrent on the hub -> listed on its paired peers (each peer's ActivitiesChanged,"
          + " confirmed by its list; \(samples) samples, 10 ms of it the debounce)")
    func row(_ label: String, _ values: [Double]) -> String {
        "  \(label.padding(toLength: 44, withPad: " ", startingAt: 0))\(milliseconds(median(values)))  \(milliseconds(percentile90(values)))"
    }
    print("".padding(toLength: 46, withPad: " ", startingAt: 0) + "    median         p90")
    print(row("1 paired peer", single.last))
    print(row("\(count) paired peers: the first to list it", many.first))
    let lastMedian = median(many.last)
    print(row("\(count) paired peers: the last to list it", many.last) + "   target <= 50 ms: \(lastMedian <= 0.05 ? "PASS" : "MISS")"
          + String(format: "   (%.2fx the single peer)", lastMedian / median(single.last)))
}
