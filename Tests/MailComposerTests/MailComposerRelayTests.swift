import Foundation
import ServiceFixtures
import XCTest

/// Two devices on two home networks, each behind its own NAT (iptables masquerade, nothing
/// in), with a self-hosted relay (Debian's `strelaysrv`) on the internet between them
/// (``NATNetwork``: five network namespaces). They pair while they reach each other (as at
/// home), then each batond starts again behind its NAT: the devices link only through the
/// relay, with Baton's pinned TLS inside, and hand MailComposer drafts over. Killing the
/// relay in the middle of a continuation fails it exactly once and leaves the draft on its
/// device; a direct link replaces the relay's as soon as one is possible.
final class MailComposerRelayTests: XCTestCase {
    private var network: NATNetwork!
    private var relay: RelayServer!
    private var devices: DevicePair!
    private var displayB: VirtualDisplay!
    private var apps: [MailComposerProcess] = []
    private var batondA: ChildProcess!
    private var batondB: ChildProcess!
    private let relayPort = 22067

    override func setUpWithError() throws {
        try MailComposerProcess.requirements()
        for missing in [ServiceSession.missingRequirement, NATNetwork.missingRequirement, RelayServer.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        displayB = try VirtualDisplay()
        network = try NATNetwork()
        relay = try RelayServer()
        try relay.start(host: network.serverAddress, port: UInt16(relayPort), namespace: network.internet)
        devices = try DevicePair(batondArguments: ["--relay", relay.address], displayB: displayB.name, namespaces: network)
        try devices.pair()

        // MailComposer is installed on B: batond B starts it on B's display.
        let installed = MailComposerProcess(root: devices.b.root.appendingPathComponent("mail-b"))
        installed.display = displayB.name
        apps.append(installed)
        try installed.install(in: devices.b)

        // The two leave home: each behind its own NAT, batond started again there.
        try network.closeNAT()
        devices.batondA.stop()
        devices.batondB.stop()
        let behindNAT = ["--no-discovery", "--relay", relay.address]
        batondA = try devices.a.startBatond(["--name", "alpha", "--listen", "\(network.addressA):0"] + behindNAT,
                                           name: "batond-a-nat", namespace: network.a)
        batondB = try devices.b.startBatond(["--name", "beta", "--listen", "\(network.addressB):0"] + behindNAT,
                                           name: "batond-b-nat", namespace: network.b)
        XCTAssertTrue(waitUntil(timeout: 30) { try self.relayOfA() == "\(self.network.serverAddress):\(self.relayPort)" },
                      "B linked with A through the relay: \(batondB.log.suffix(1500))")
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            print("--- batond A\n\(batondA?.log.suffix(3000) ?? "")\n--- batond B\n\(batondB?.log.suffix(3000) ?? "")")
            print("--- relay\n\(relay?.log.suffix(1500) ?? "")")
            apps.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(1500))") }
        }
        for app in apps {
            if let pid = app.pid { kill(pid, SIGCONT) }
            app.terminate()
            if let pid = app.pid { kill(pid, SIGTERM) }
        }
        devices?.tearDown()
        relay?.remove()
        network?.remove()
        displayB?.stop()
    }

    /// The relay B's link with A runs through, per `baton devices` on B; nil when direct.
    private func relayOfA() throws -> String? {
        guard let record = try devices.device(devices.idA, on: devices.b), record["connected"] as? Bool == true else { return nil }
        return record["relay"] as? String ?? "direct"
    }

    /// The port batond A listens on now.
    private func portOfA() throws -> Int {
        let listen = try DevicePair.status(of: devices.a)["listen"] as? String ?? ""
        return Int(listen.split(separator: ":").last ?? "") ?? 0
    }

    /// Starts MailComposer on A with a draft to bob titled `subject`; waits until B lists it.
    private func draftOnA(_ subject: String, body: String) throws -> (app: MailComposerProcess, offerID: String) {
        let onA = MailComposerProcess(root: devices.a.root.appendingPathComponent("mail-a-\(apps.count)"))
        apps.append(onA)
        try onA.launch(["--compose", "--to", "bob@example.org", "--subject", subject, "--body", body],
                       environment: devices.a.environment)
        XCTAssertFalse(try onA.windows(titled: subject).isEmpty, "the draft is open on A")
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Draft: \(subject)", timeout: 20), "B lists A's draft")
        return (onA, try XCTUnwrap(offer["id"] as? String))
    }

    /// What the draft window titled `subject` of `app` holds, on `session`'s device: the app's
    /// own save, asked once the window has the focus (and so is the current activity).
    private func heldDraft(_ subject: String, in app: MailComposerProcess, on session: ServiceSession) throws -> [String: Any]? {
        let window = try XCTUnwrap(app.windows(titled: subject).first, "the draft window \(subject) is open")
        try app.focus(window)
        var held: [String: Any]?
        waitUntil {
            held = (try session.baton(["inspect", "--json"]).json as? [String: Any])?["userInfo"] as? [String: Any]
            return held?["subject"] as? String == subject
        }
        return held
    }

    func testDevicesBehindTwoNATsHandADraftOverThroughTheRelayAndGoDirectOnceTheyCan() throws {
        // The NATs are real: neither device can be reached from outside, and the relay sees
        // only the routers' outside addresses.
        let portA = try portOfA()
        XCTAssertTrue(network.canConnect(from: network.routerA, to: network.addressA, port: portA), "batond A listens on its network")
        XCTAssertFalse(network.canConnect(from: network.b, to: network.addressA, port: portA), "B cannot reach A")
        XCTAssertFalse(network.canReachFromOutside(network.addressA, port: portA), "nothing comes in through A's router")
        let seenByRelay = Set(network.peers(in: network.internet, ofPort: relayPort))
        XCTAssertEqual(seenByRelay, [network.outsideA, network.outsideB], "the relay sees the routers, not the devices")

        let (onA, offerID) = try draftOnA("Over the relay", body: "Written behind one NAT, finished behind another")
        let result = try devices.b.baton(["continue", offerID])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let onB = apps[0]
        let restored = try XCTUnwrap(onB.waitForEvent { $0.event == "restored" }, "MailComposer on B restored the draft")
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        let held = try heldDraft("Over the relay", in: onB, on: devices.b)
        XCTAssertEqual(held?["to"] as? String, "bob@example.org", "the window on B holds the draft: \(String(describing: held))")
        XCTAssertEqual(held?["subject"] as? String, "Over the relay")
        XCTAssertEqual(held?["body"] as? String, "Written behind one NAT, finished behind another")
        XCTAssertNotNil(onA.waitForEvent { $0.event == "was-continued" }, "A's app hears it was continued")
        XCTAssertTrue(waitUntil { try onA.windows(titled: "Over the relay", timeout: 0.1).isEmpty }, "the draft window closed on A")
        XCTAssertEqual(try relayOfA(), "\(network.serverAddress):\(relayPort)", "all of it through the relay")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            _ = try devices.b.run(URL(fileURLWithPath: "/usr/bin/import"),
                                  ["-display", displayB.name, "-window", "root", "\(folder)/relay-device-b.png"])
        }

        // Back on networks that reach each other: a direct link replaces the relay's.
        try network.open()
        XCTAssertTrue(network.canReachFromOutside(network.addressA, port: portA), "without its NAT, A is reached from outside")
        // (Failed direct dials back off up to a minute.)
        XCTAssertTrue(waitUntil(timeout: 75) { try self.relayOfA() == "direct" },
                      "B links with A directly: \(String(describing: try? relayOfA()))")
        XCTAssertTrue(waitUntil {
            let table = try self.devices.a.baton(["devices"]).output
            return table.contains("paired, connected") && !table.contains("through the relay")
        }, (try? devices.a.baton(["devices"]).output) ?? "")
    }

    func testARelayKilledMidContinuationFailsItOnceAndTheDraftStaysOnItsDevice() throws {
        // MailComposer runs on B, so it is told the continuation will come, and of its end.
        let onB = apps[0]
        try onB.launch([], environment: devices.b.environment)
        let pidB = try XCTUnwrap(onB.process?.processIdentifier)
        XCTAssertTrue(waitUntil(timeout: 15) {
            (try self.devices.b.baton(["apps", "--json"]).json as? [[String: Any]] ?? []).contains { $0["pid"] as? Int == Int(pidB) }
        }, "MailComposer runs on B, registered with batond B")
        let (onA, offerID) = try draftOnA("Stays here", body: "Nothing of it is lost")
        let pidA = try XCTUnwrap(onA.process?.processIdentifier)

        // A's app is stopped while saving, so the continuation is in the middle when the relay goes.
        kill(pidA, SIGSTOP)
        let cli = try devices.b.start(ServiceSession.product("baton"), ["continue", offerID], name: "continue")
        XCTAssertNotNil(onB.waitForEvent(timeout: 10) { $0.event == "will-continue" }, "MailComposer on B was told it will continue")
        // B's fetch crossed the relay to A; A's app, stopped, cannot answer it (batond A waits
        // 5 s for a save).
        XCTAssertTrue(waitUntil(timeout: 5) { self.batondA.log.contains("beta asks for an activity's payload") },
                      "the fetch reached A: \(batondA.log.suffix(1000))")
        relay.stop()
        kill(pidA, SIGCONT)

        XCTAssertEqual(cli.waitForExit(timeout: 15), 1, "the continuation failed: \(cli.log)")
        XCTAssertTrue(cli.log.contains("alpha"), "the error names the device whose link was lost: \(cli.log)")
        let failed = try XCTUnwrap(onB.waitForEvent(timeout: 10) { $0.event == "failed" }, "MailComposer on B heard it failed")
        Thread.sleep(forTimeInterval: 2)
        let outcomes = onB.events().filter { ["failed", "continued"].contains($0.event ?? "") }
        XCTAssertEqual(outcomes.count, 1, "exactly one outcome: \(outcomes), the failure \(failed)")
        XCTAssertTrue(try onB.windows(titled: "Stays here", timeout: 0.5).isEmpty, "no draft window on B")

        // On A the draft is still open, whole, and was never said to be continued.
        XCTAssertFalse(try onA.windows(titled: "Stays here").isEmpty, "the draft window is still open on A")
        XCTAssertNil(onA.events().first { $0.event == "was-continued" }, "A's app was not told it was continued")
        let held = try heldDraft("Stays here", in: onA, on: devices.a)
        XCTAssertEqual(held?["subject"] as? String, "Stays here", "A's window holds the draft: \(String(describing: held))")
        XCTAssertEqual(held?["body"] as? String, "Nothing of it is lost")

        // The relay back, the same draft continues.
        try relay.start(host: network.serverAddress, port: UInt16(relayPort), namespace: network.internet)
        let again = try XCTUnwrap(devices.b.waitForActivity(titled: "Draft: Stays here", timeout: 60), "B lists the draft again")
        let result = try devices.b.baton(["continue", XCTUnwrap(again["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertEqual(try heldDraft("Stays here", in: onB, on: devices.b)?["body"] as? String, "Nothing of it is lost",
                       "the draft opens on B, whole")
        XCTAssertTrue(waitUntil { try onA.windows(titled: "Stays here", timeout: 0.1).isEmpty }, "and closes on A")
    }
}
