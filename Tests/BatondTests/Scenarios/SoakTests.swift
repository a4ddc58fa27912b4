import BatonBus
import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// Issue 13 §5, the soak: 1 000 continuations in a row between two batonds, and 1 000 on one
/// device (`BATON_SOAK_ROUNDS` changes the number). Every one must succeed, each batond's
/// open file descriptors and GLib sources must come back to their count after a warm-up, and
/// its resident memory may grow by less than 2 MiB. The figures are printed for the CI log
/// (and the "Soak" section of docs/testing.md).
///
/// The apps are real BatonTestApp processes, started once: one whose activity is continued
/// (the origin) and one that continues it (the target, verified through its desktop entry).
/// Every 100th continuation the origin's note is edited first (`SIGUSR1` appends
/// " (active)"), and the target must then hold the new text: what it publishes from its own
/// entry, not only its trace. Every `restored` event of the target's trace is checked
/// against the text that was sent.
@MainActor
final class SoakTests: XCTestCase {
    fileprivate static let warmUp = 50
    /// 1 000, or `BATON_SOAK_ROUNDS` for a longer soak (`scripts/soak.sh 10000`).
    fileprivate static let rounds = ProcessInfo.processInfo.environment["BATON_SOAK_ROUNDS"].flatMap { Int($0) }
        .map { max(sampleEvery, $0) } ?? 1_000
    fileprivate static let sampleEvery = 100
    /// Seconds one soak may take, warm-up and settling included (90 per 1 000 rounds); past
    /// it the soak fails.
    fileprivate static let budget = 90 * max(1, Double(rounds) / 1_000)
    /// The most resident memory a batond may gain over the rounds, in KiB.
    fileprivate static let allowedGrowth = 2048
    /// Seconds of unchanged counts after which the batonds count as settled.
    fileprivate static let quietSeconds: TimeInterval = 4

    private var devices: DevicePair?
    private var session: ServiceSession?

    override func setUp() async throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
    }

    override func tearDown() async throws {
        if testRun?.hasSucceeded == false {
            devices?.printLogs()
            session?.printLogs()
        }
        devices?.tearDown()
        session?.tearDown()
    }

    func testAThousandContinuationsBetweenTwoDevices() async throws {
        let devices = try DevicePair()
        self.devices = devices
        try devices.pair()
        let busA = try BusConnection.bus(at: devices.a.busAddress)
        let busB = try BusConnection.bus(at: devices.b.busAddress)
        let origin = try startNote("origin", on: devices.a, bus: busA, appID: "org.baton.TestApp")
        let target = try startNote("target", on: devices.b, bus: busB, appID: "org.baton.Target")
        let soak = Soak(bus: busB, origin: origin, target: target, originKind: "offer")
        try soak.run(label: "two devices (Continue on B of A's activity, fetched over TLS)",
                     watched: [Watched(name: "batond B", bus: busB, pid: devices.batondB.pid),
                               Watched(name: "batond A", bus: busA, pid: devices.batondA.pid)])
    }

    func testAThousandContinuationsOnOneDevice() async throws {
        let session = try ServiceSession()
        self.session = session
        try session.startBus()
        let batond = try session.startBatond()
        let bus = try BusConnection.bus(at: session.busAddress)
        let origin = try startNote("origin", on: session, bus: bus, appID: "org.baton.TestApp")
        let target = try startNote("target", on: session, bus: bus, appID: "org.baton.Target")
        let soak = Soak(bus: bus, origin: origin, target: target, originKind: "local")
        try soak.run(label: "one device (Continue of another app's local activity)",
                     watched: [Watched(name: "batond", bus: bus, pid: batond.pid)])
    }

    /// Starts a note app verified for the note type on its device, with text `name`, and
    /// waits until its activity is listed there.
    private func startNote(_ name: String, on session: ServiceSession, bus: BusConnection, appID: String)
        throws -> NoteApp {
        try session.installTestAppEntry(id: appID)
        let trace = session.root.appendingPathComponent("\(name).trace.jsonl")
        let child = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", name, "--app-id", appID],
                                      name: name, environment: ["BATON_TRACE": trace.path])
        let app = NoteApp(appID: appID, text: name, child: child, trace: TraceTail(trace))
        guard waitUntil(timeout: 15, { try Soak.listing(on: bus, appID: appID, title: "Note: \(name)", origin: "local") != nil })
        else { throw FixtureError("\(name) never listed its activity: \(child.log)") }
        return app
    }
}

/// A BatonTestApp note app under test.
@MainActor
private final class NoteApp {
    let appID: String
    /// The text its note holds.
    var text: String
    let child: ChildProcess
    let trace: TraceTail

    init(appID: String, text: String, child: ChildProcess, trace: TraceTail) {
        self.appID = appID
        self.text = text
        self.child = child
        self.trace = trace
    }
}

/// A batond whose resources are watched: its bus (for `GetStatus`) and its process.
@MainActor
private struct Watched {
    let name: String
    let bus: BusConnection
    let pid: Int32
}

/// What a batond holds at one moment.
private struct Resources: Equatable {
    let descriptors: Int
    let sources: Int
}

private struct Snapshot {
    let resources: Resources
    let memory: ProcessMemory
}

/// Continuations of the origin's activity into the target, in a row, on `bus`'s batond.
@MainActor
private final class Soak {
    let bus: BusConnection
    let origin: NoteApp
    let target: NoteApp
    /// How the continuing batond lists the origin's activity: "offer" (from another device)
    /// or "local".
    let originKind: String
    /// The text sent by each continuation so far, in order, and how many the target's trace
    /// confirmed.
    private var sent: [String] = []
    private var confirmed = 0
    private var activityID = ""
    private var started = Date()

    init(bus: BusConnection, origin: NoteApp, target: NoteApp, originKind: String) {
        self.bus = bus
        self.origin = origin
        self.target = target
        self.originKind = originKind
    }

    func run(label: String, watched: [Watched]) throws {
        started = Date()
        activityID = try XCTUnwrap(listedID(of: origin), "the origin's activity is not listed where it is continued")
        try continuations(SoakTests.warmUp, sampling: false)
        try touchOrigin()
        try continueOnce()
        try checkTarget()
        let before = try settle(watched, toward: nil)

        let start = Date()
        try continuations(SoakTests.rounds, sampling: true)
        try checkTarget()
        let duration = Date().timeIntervalSince(start)

        let after = try settle(watched, toward: before.map(\.resources))
        print(String(format: "soak, %@: %d continuations in %.1f s (%.0f/s, %.2f ms each), after %d to warm up; all restored",
                     label, SoakTests.rounds, duration, Double(SoakTests.rounds) / duration,
                     duration * 1000 / Double(SoakTests.rounds), SoakTests.warmUp + 1))
        for (daemon, (first, last)) in zip(watched, zip(before, after)) {
            let growth = last.memory.resident - first.memory.resident
            print("  \(daemon.name): open fds \(first.resources.descriptors) -> \(last.resources.descriptors), "
                  + "GLib sources \(first.resources.sources) -> \(last.resources.sources), "
                  + "RSS \(first.memory.resident) -> \(last.memory.resident) KiB (\(growth >= 0 ? "+" : "")\(growth) KiB), "
                  + "anonymous \(first.memory.anonymous) -> \(last.memory.anonymous) KiB")
            XCTAssertEqual(last.resources.descriptors, first.resources.descriptors, "\(daemon.name) leaks descriptors")
            XCTAssertEqual(last.resources.sources, first.resources.sources, "\(daemon.name) leaks GLib sources")
            XCTAssertLessThan(growth, SoakTests.allowedGrowth, "\(daemon.name)'s resident memory grew")
        }
        let timed = Date()
        _ = try status(of: watched[0].bus)
        print(String(format: "  GetStatus (which counts the sources) took %.1f ms at the end; the whole soak %.1f s",
                     Date().timeIntervalSince(timed) * 1000, Date().timeIntervalSince(started)))
    }

    /// `count` continuations; when `sampling`, every 100th follows an edit of the origin's
    /// note and is checked in what the target holds.
    private func continuations(_ count: Int, sampling: Bool) throws {
        for round in 1...count {
            guard Date().timeIntervalSince(started) < SoakTests.budget else {
                throw FixtureError("over the soak's \(Int(SoakTests.budget)) s budget at round \(round)")
            }
            let sample = sampling && round % SoakTests.sampleEvery == 0
            if sample { try touchOrigin() }
            try continueOnce()
            if sample { try checkTarget() }
        }
    }

    private func continueOnce() throws {
        do {
            _ = try bus.callSync(BatonService.busName, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                                 method: "Continue", arguments: [.string(activityID)], autoStart: false, timeout: 30)
        } catch {
            throw FixtureError("continuation \(sent.count + 1) failed: \(error)")
        }
        sent.append(origin.text)
    }

    /// Edits the origin's note as a user would and waits until the new text is listed where
    /// it is continued.
    private func touchOrigin() throws {
        kill(origin.child.pid, SIGUSR1)
        origin.text += " (active)"
        var id: String?
        guard waitUntil(timeout: 10, {
            id = try listedID(of: origin)
            return id != nil
        }), let id else { throw FixtureError("the edited note \"\(origin.text)\" was never listed") }
        activityID = id
    }

    /// Checks the target's trace for every continuation sent so far (one `restored` each,
    /// with the text sent, no `failed`), then that its note holds the last text: it lists
    /// its activity titled with it.
    private func checkTarget() throws {
        var problem: String?
        let caughtUp = waitUntil(timeout: 10, {
            for event in target.trace.newEvents() where problem == nil {
                switch event["event"] as? String {
                case "failed":
                    problem = "continuation \(confirmed + 1) failed in the target: \(event)"
                case "restored":
                    let text = (event["userInfo"] as? [String: Any])?["text"] as? String
                    guard confirmed < sent.count, text == sent[confirmed] else {
                        problem = "the target restored \(text ?? "nothing") as continuation \(confirmed + 1)"
                        break
                    }
                    confirmed += 1
                default:
                    break
                }
            }
            return problem != nil || confirmed == sent.count
        })
        if let problem { throw FixtureError(problem) }
        guard caughtUp else { throw FixtureError("the target's trace confirms \(confirmed) of \(sent.count) continuations") }
        target.text = origin.text
        guard waitUntil(timeout: 10, { try listedID(of: target) != nil }) else {
            throw FixtureError("the target never listed its note as \"\(target.text)\"")
        }
    }

    private func listedID(of app: NoteApp) throws -> String? {
        try Self.listing(on: bus, appID: app.appID, title: "Note: \(app.text)", origin: app === origin ? originKind : "local")
    }

    /// The id of the activity of `appID` titled `title` listed on `bus`'s batond as `origin`.
    static func listing(on bus: BusConnection, appID: String, title: String, origin: String) throws -> String? {
        let reply = try bus.callSync(BatonService.busName, path: BatonService.daemonPath,
                                     interface: BatonService.daemonInterface, method: "ListActivities",
                                     autoStart: false, timeout: 10)
        let match = (reply.at(0)?.dictionaries ?? []).first {
            $0["app-id"]?.string == appID && $0["title"]?.string == title && $0["origin"]?.string == origin
        }
        return match?["id"]?.string
    }

    private func status(of bus: BusConnection) throws -> [String: BusValue] {
        try bus.callSync(BatonService.busName, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                         method: "GetStatus", autoStart: false, timeout: 10).at(0)?.dictionary ?? [:]
    }

    private func resources(of daemon: Watched) throws -> Resources {
        let status = try status(of: daemon.bus)
        guard let descriptors = status["open-fds"]?.integer, let sources = status["glib-sources"]?.integer else {
            throw FixtureError("\(daemon.name)'s GetStatus has no open-fds or glib-sources: \(status.keys.sorted())")
        }
        return Resources(descriptors: Int(descriptors), sources: Int(sources))
    }

    /// Waits until the batonds' counts stop changing: alike for ``SoakTests/quietSeconds``
    /// (longer than the 3 s hello timer a new link arms until its hello comes), or
    /// equal to `expected` on three polls 100 ms apart; at most 20 s. Then reads their memory.
    private func settle(_ daemons: [Watched], toward expected: [Resources]?) throws -> [Snapshot] {
        let deadline = Date().addingTimeInterval(20)
        var last = try daemons.map { try resources(of: $0) }
        var quietSince = Date()
        var alike = 0
        while Date() < deadline && Date().timeIntervalSince(quietSince) < SoakTests.quietSeconds
                && !(last == expected && alike >= 2) {
            usleep(100_000)
            let now = try daemons.map { try resources(of: $0) }
            if now == last {
                alike += 1
            } else {
                alike = 0
                quietSince = Date()
            }
            last = now
        }
        return try zip(daemons, last).map { daemon, resources in
            guard let memory = ProcessMemory(pid: daemon.pid) else { throw FixtureError("\(daemon.name) is gone") }
            return Snapshot(resources: resources, memory: memory)
        }
    }
}
