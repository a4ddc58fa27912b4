import Baton
import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation

// Baton's network figures, in one run on loopback: two real batonds (each with its own
// session bus, identity and pairings, linked over pinned TLS 1.3), with this process playing
// the app on each device over D-Bus and answering at once, so the figures are the service's.
//
//   offer propagation:    PublishCurrent on A (what becomeCurrent sends) -> listed on B
//   continuation latency: Continue on B -> the app on B was handed the activity it restored
//   floor:                a bare TLS request/response with the same payload size, through the
//                         same GIO TLS stack: on a fresh connection (handshake included), and
//                         on one kept open
//   breakdown:            the continuation's parts measured alone in the same run: a D-Bus
//                         round trip, Inspect on A (a save relayed by batond), Fetch on B (the
//                         same over the link)
//   relay:                the same offer propagation and continuation between two batonds
//                         linked only through a private strelaysrv, beside the floor through
//                         it; then with 50 ms added each way on each device's path to it
//                         (RelayBenchmark.swift; `--relay-only` runs only these)
//   clipboard:            a copy with xclip on A's Xvfb pasted with xclip on B's, 1 KiB of text
//                         and a 5 MiB image, beside the same paste of a copy made on B and the
//                         link floors (Clipboard.swift; `--clipboard-only` runs only these)
//   at rest:              a batond alone, with 1 paired batond (beside kdeconnectd with one
//                         paired kdeconnectd, measured over the same seconds; needs root for
//                         their network namespaces) and as the hub of 10: memory and wake-ups
//                         per second; then how long a batond takes to notice a paired peer gone
//                         without a word (two network namespaces, the peer frozen and its
//                         address taken away; needs root) (`--rest-only` runs only these, and
//                         then the same for kdeconnectd: about a minute more)
//   fan-out:              PublishCurrent on the hub of 10 paired batonds -> listed on the last
//                         of them, beside the same with 1 (Fanout.swift; in the full run after
//                         the rest figures, with the same batonds; `--fanout-only` runs only it)
//
//     swift build -c release --package-path Benchmarks --product batond --product PeerBenchmarks
//     Benchmarks/.build/release/PeerBenchmarks Benchmarks/.build/release/batond

let samples = 40
let activityType = "org.bench.document"
let team = "org.bench"

@MainActor
func run(batond: String) async throws {
    let a = try Device(name: "a")
    let b = try Device(name: "b")
    defer { a.stop(); b.stop() }
    // Debug logs carry each continuation's step times (where its time goes, inside batond).
    try a.startBatond(batond, arguments: ["--name", "alpha"], logLevel: "debug")
    let busA = try BusConnection.bus(at: a.address)
    let busB = try BusConnection.bus(at: b.address)
    var statusA: [String: BusValue] = [:]
    try await waitFor("batond A") {
        statusA = (try? await daemonCall(busA, "GetStatus"))?.first?.dictionary ?? [:]
        return statusA["listen"] != nil
    }
    try b.startBatond(batond, arguments: ["--name", "beta", "--peer", statusA["listen"]?.string ?? ""], logLevel: "debug")
    try await waitFor("the link between A and B") {
        let devices = (try? await daemonCall(busB, "ListDevices"))?.first?.dictionaries ?? []
        return devices.contains { $0["connected"]?.bool == true }
    }
    // Each device shows its own code; each is confirmed with the code the other shows.
    let codeB = try await daemonCall(busB, "Pair", [.string("alpha")]).at(1)?.string ?? ""
    var codeA = ""
    try await waitFor("A's pairing code") {
        let devices = (try? await daemonCall(busA, "ListDevices"))?.first?.dictionaries ?? []
        codeA = devices.lazy.compactMap { $0["pairing-code"]?.string }.first ?? ""
        return !codeA.isEmpty
    }
    _ = try await daemonCall(busA, "ConfirmPair", [.string("beta"), .string(codeB)])
    _ = try await daemonCall(busB, "ConfirmPair", [.string("alpha"), .string(codeA)])

    let handoff = try await measureHandoff(busA: busA, busB: busB, installingOn: b, titled: "bench")
    let (origin, target, offerID) = (handoff.origin, handoff.target, handoff.offerID)
    let (propagation, continuation) = (handoff.propagation, handoff.continuation)

    // The continuation's parts, each alone.
    func timed(_ body: () async throws -> Void) async throws -> [Double] {
        var times: [Double] = []
        for index in 0..<(samples + 3) {
            let start = Date()
            try await body()
            if index >= 3 { times.append(Date().timeIntervalSince(start)) }
        }
        return times
    }
    let busRoundTrip = try await timed {
        _ = try await busB.call(busB.uniqueName, path: BatonService.applicationPath, interface: BatonService.applicationInterface,
                                method: "Save", arguments: [.string("bench")])
    }
    let inspect = try await timed { _ = try await daemonCall(busA, "Inspect") }
    let fetch = try await timed { _ = try await daemonCall(busB, "Fetch", [.string(offerID)]) }

    let floor = try await measureFloor(payloadSize: origin.payload.count)

    // Continuation streams: 100 MiB from A's app to B's app, nine times, each beside the
    // bare link; then the time to the first byte of ten small streams.
    let streamSize = 100 << 20
    let streamRuns = 9
    let streamOrigin = StreamOriginApp()
    origin.streamOrigin = streamOrigin
    origin.payload = Array(try UserActivityPayload(activityType: activityType, title: "bench", userInfo: ["body": .string(draftText)],
                                                   supportsContinuationStreams: true).encoded())
    var streamTimes: [(first: Double, all: Double)] = []
    var expected = streamSize
    target.whileContinuing = { token in streamTimes.append(try await readStream(token: token, on: busB, expecting: expected)) }
    var bareTimes: [Double] = []
    for _ in 0..<streamRuns {
        streamOrigin.size = streamSize
        _ = try await daemonCall(busB, "Continue", [.string(offerID)])
        bareTimes.append(try await measureBareTransfer(size: streamSize))
    }
    let bulk = streamTimes
    streamTimes = []
    expected = 1024
    streamOrigin.size = 1024
    for _ in 0..<10 { _ = try await daemonCall(busB, "Continue", [.string(offerID)]) }
    let firstBytes = streamTimes.map(\.first)
    target.whileContinuing = nil
    print("Baton network figures: two batonds on loopback, pinned TLS 1.3 (GIO + glib-networking), \(samples) samples each")
    print("batond: \(batond); payload \(origin.payload.count) bytes; apps played by this process, answering at once")
    print("")
    print("                                            median        p90")
    print("offer propagation (publish on A -> on B)  \(milliseconds(median(propagation)))  \(milliseconds(percentile90(propagation)))   target < 100 ms: \(median(propagation) < 0.1 ? "PASS" : "MISS")")
    print("continuation (continue on B -> restored)  \(milliseconds(median(continuation)))  \(milliseconds(percentile90(continuation)))")
    print("floor: TLS request/response, new link     \(milliseconds(median(floor.cold)))  \(milliseconds(percentile90(floor.cold)))")
    print("floor: TLS request/response, open link    \(milliseconds(median(floor.warm)))  \(milliseconds(percentile90(floor.warm)))")
    let ratio = median(continuation) / median(floor.cold)
    print(String(format: "continuation / floor (new link): %.2fx   target < 3x: %@", ratio, ratio < 3 ? "PASS" : "MISS"))
    let warmRatio = median(continuation) / median(floor.warm)
    print(String(format: "continuation / floor (open link): %.1fx   target <= 5x: %@ (the open link is what batond uses)",
                 warmRatio, warmRatio <= 5 ? "PASS" : "MISS"))
    print("")
    print("where a continuation's time goes (medians, each part measured alone in this run):")
    print("  D-Bus round trip through dbus-daemon, with the payload       \(milliseconds(median(busRoundTrip)))")
    print("  Inspect on A: to batond A, which has the app save, and back  \(milliseconds(median(inspect)))"
          + "   (2 round trips + batond: \(milliseconds(median(inspect) - 2 * median(busRoundTrip))))")
    print("  Fetch on B: to batond B, over the link to A, Inspect there   \(milliseconds(median(fetch)))"
          + "   (the link's part: \(milliseconds(median(fetch) - median(inspect))), floor \(milliseconds(median(floor.warm))))")
    print("  Continue on B: Fetch with BeginContinuation beside it, then  \(milliseconds(median(continuation)))"
          + "   (CompleteContinuation and the rest: \(milliseconds(median(continuation) - median(fetch))))")
    let stepsB = b.loggedTimings("continuation timing")
    let saveA = a.loggedTimings("save timing")
    func step(_ value: Double?) -> String { value.map { String(format: "%8.2f ms", $0) } ?? "       ? ms" }
    print("  as batond B logs each continuation (medians): claim \(step(stepsB["claim"])), BeginContinuation"
          + " \(step(stepsB["BeginContinuation"])) beside the fetch \(step(stepsB["fetch"])), then"
          + " CompleteContinuation \(step(stepsB["CompleteContinuation"])); total \(step(stepsB["total"]))")
    let fewest = 3 * median(busRoundTrip) + median(floor.warm)
    print("  the fewest a continuation can make: 3 D-Bus round trips (Continue, Save on A, CompleteContinuation)")
    print(String(format: "    and 1 link round trip = %.2f ms (%.1fx the open-link floor); continuation / that: %.2fx",
                 fewest * 1000, fewest / median(floor.warm), median(continuation) / fewest))
    print("  as batond A logs the app's Save (medians, Inspect and fetches):                 \(step(saveA["Save"]))")
    print("")
    let streamRate = Double(streamSize) / median(bulk.map(\.all)) / 1_048_576
    let bareRate = Double(streamSize) / median(bareTimes) / 1_048_576
    // The target is on the throughputs (the median of each side's runs). Each stream run is
    // also compared with the floor run beside it: the spread of those ratios shows how much
    // the machine moved between runs.
    let streamRatio = streamRate / bareRate
    let pairRatios = zip(bulk, bareTimes).map { $0.1 / $0.0.all }.sorted()
    print("continuation streams (medians of \(streamRuns) runs of 100 MiB, each beside a run of the floor; of 10 small streams for the first byte):")
    print(String(format: "  stream, A's app -> batond A -> pinned link -> batond B -> B's app   %7.1f MiB/s", streamRate))
    print(String(format: "  floor: the same bytes over a bare pinned TLS link (256 KiB frames)    %7.1f MiB/s", bareRate))
    print(String(format: "  stream / floor: %.0f %%   target >= 80 %%: %@", streamRatio * 100, streamRatio >= 0.8 ? "PASS" : "MISS"))
    print(String(format: "  each run beside its floor run: median %.0f %%, from %.0f to %.0f %%",
                 median(pairRatios) * 100, (pairRatios.first ?? 0) * 100, (pairRatios.last ?? 0) * 100))
    print("  first byte after OpenContinuationStream (open over the link, request, answer)  \(milliseconds(median(firstBytes)))")
    withExtendedLifetime((origin, target, busA, busB)) {}
    try await runClipboard(batond: batond, openLinkFloor: median(floor.warm))
}

/// Prints a batond at rest, alone, with one paired peer (beside kdeconnectd with one paired
/// device, over the same seconds) and with `peers`, against its targets; then, when asked,
/// offer fan-out to the `peers` and to one; then the time to notice a peer gone.
@MainActor
func runRest(batond: String, peers: Int, fanout: Bool, kdeconnectGone: Bool) async throws {
    let seconds = 30.0
    let hub = try await PairedHub(batond: batond)
    defer { hub.stop() }
    try await Task.sleep(nanoseconds: 1_000_000_000)
    let alone = try await measureAtRest(pid: try hub.hubPID(), seconds: seconds)

    try await hub.addPeers(upTo: 1)
    var kdeconnect: KDEConnectPair?
    defer { kdeconnect?.stop() }
    var kdeconnectState = KDEConnectPair.missingRequirement.map { "not measured (\($0))" }
    var kdeconnectLabel = "kdeconnectd, 1 paired device"
    if kdeconnectState == nil {
        do {
            let pair = try await KDEConnectPair()
            kdeconnect = pair
            do {
                try await pair.pair()
            } catch {
                kdeconnectLabel = "kdeconnectd, 1 device, NOT paired"
                print("kdeconnectd: the pairing failed (\(error)); measured with the other device linked but not paired")
            }
        } catch {
            kdeconnectState = "not measured (\(error))"
        }
    }
    try await Task.sleep(nanoseconds: 2_000_000_000)
    var pids = [try hub.hubPID()]
    if kdeconnectState == nil, let pid = kdeconnect?.pidA { pids.append(pid) }
    let onePeer = try await measureAtRest(pids: pids, seconds: seconds)
    let kdeconnectFigures = onePeer.count > 1 ? onePeer[1] : nil
    if kdeconnectState == nil && kdeconnectFigures == nil { kdeconnectState = "not measured (kdeconnectd exited)" }
    var kdeconnectNoticed: Double?
    if kdeconnectGone, kdeconnectFigures != nil, let kdeconnect {
        kdeconnectNoticed = try await kdeconnect.measureGone()
    }
    kdeconnect?.stop()
    kdeconnect = nil

    try await hub.addPeers(upTo: peers)
    try await Task.sleep(nanoseconds: 2_000_000_000)
    let paired = try await measureAtRest(pid: try hub.hubPID(), seconds: seconds)

    func mib(_ value: Int) -> String { String(format: "%6.1f MiB", Double(value) / 1024) }
    func row(_ label: String, _ figures: RestFigures) {
        print("  \(label.padding(toLength: 36, withPad: " ", startingAt: 0))\(mib(figures.anonymousKiB))   \(mib(figures.privateKiB))"
              + "   \(mib(figures.proportionalKiB))   \(mib(figures.residentKiB))   \(String(format: "%6.2f", figures.wakeupsPerSecond))")
    }
    print("")
    print("at rest (\(batond), \(Int(seconds)) s each; anonymous: heap and stacks, RssAnon; private: all pages no other")
    print("process maps, the libraries' relocated data included; Pss: private pages and a share of each shared one;")
    print("wake-ups: context switches of all threads)")
    func right(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
    print("".padding(toLength: 38, withPad: " ", startingAt: 0) + right("anonymous", 10) + right("private", 13) + right("Pss", 13)
          + right("resident", 13) + right("wake-ups/s", 13))
    row("batond, no peers", alone)
    row("batond, 1 paired peer", onePeer[0])
    if let kdeconnectFigures {
        row(kdeconnectLabel, kdeconnectFigures)
    } else {
        print("  kdeconnectd, 1 paired device: \(kdeconnectState ?? "not measured")")
    }
    row("batond, \(peers) paired peers", paired)
    print("  the threads that woke (wake-ups/s): batond with 1 peer: \(onePeer[0].threadsThatWoke);"
          + " with \(peers): \(paired.threadsThatWoke)" + (kdeconnectFigures.map { "; kdeconnectd: \($0.threadsThatWoke)" } ?? ""))
    print("  (batond and kdeconnectd with one paired device were measured over the same \(Int(seconds)) s; kdeconnectd and its"
          + " peer, another kdeconnectd, each in a network namespace of its own, one veth link between)")
    print("  target: no wake-ups without peers: \(alone.wakeupsPerSecond < 0.5 ? "PASS" : "MISS");"
          + " private (anonymous) < 10 MiB with \(peers) peers: \(paired.anonymousKiB < 10 * 1024 ? "PASS" : "MISS");"
          + " at most 0.2 wake-ups/s with \(peers) peers (the kernel watches the links): \(paired.wakeupsPerSecond <= 0.2 ? "PASS" : "MISS")")
    if fanout {
        try await runFanout(hub: hub, peers: peers)
    }
    hub.stop()
    if let missing = NamespacePair.missingRequirement {
        print("  a paired peer gone without a word: not measured (\(missing))")
    } else {
        let noticed = try await measureDeadPeer(batond: batond)
        print(String(format: "  a paired peer gone without a word (frozen, its address taken away: no FIN, no RST) listed as"
                     + " not connected after %.1f s; target <= 30 s: %@", noticed, noticed <= 30 ? "PASS" : "MISS"))
    }
    if let kdeconnectNoticed {
        print(String(format: "  the same for kdeconnectd (its paired kdeconnectd's address taken away): listed as not reachable"
                     + " after %.1f s", kdeconnectNoticed))
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let batond = arguments.first,
      arguments.count == 1
        || ["--relay-only", "--clipboard-only", "--rest-only", "--fanout-only"].contains(arguments.dropFirst().first ?? "") else {
    FileHandle.standardError.write(Data(
        "usage: PeerBenchmarks PATH-TO-BATOND [--relay-only | --clipboard-only | --rest-only | --fanout-only]\n".utf8))
    exit(2)
}
let only = arguments.dropFirst().first
let status: Int32 = MainActor.assumeIsolated {
    MainQueueBridge.install()
    let loop = g_main_loop_new(nil, 0)
    var status: Int32 = 0
    Task { @MainActor in
        do {
            switch only {
            case "--relay-only":
                try await runRelay(batond: batond)
            case "--clipboard-only":
                try await runClipboard(batond: batond, openLinkFloor: median(try await measureFloor(payloadSize: 1024).warm))
            case "--rest-only":
                try await runRest(batond: batond, peers: 10, fanout: false, kdeconnectGone: true)
            case "--fanout-only":
                let hub = try await PairedHub(batond: batond)
                defer { hub.stop() }
                try await runFanout(hub: hub, peers: 10)
            default:
                try await run(batond: batond)
                try await runRelay(batond: batond)
                try await runRest(batond: batond, peers: 10, fanout: true, kdeconnectGone: false)
            }
        } catch {
            FileHandle.standardError.write(Data("network benchmarks failed: \(error)\n".utf8))
            status = 1
        }
        g_main_loop_quit(loop)
    }
    g_main_loop_run(loop)
    g_main_loop_unref(loop)
    return status
}
exit(status)
