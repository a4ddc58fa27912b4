import Foundation
import ServiceFixtures
import XCTest

/// Two devices in two network namespaces joined by a veth pair (10.77.0.1 and 10.77.0.2),
/// each with its own avahi-daemon: they find each other through DNS-SD alone (listed from the
/// records, with no link until one pairs with the other), pair, and hand
/// an activity over. Needs root (and runs in CI, which is root); skipped elsewhere.
final class NamespaceTests: XCTestCase {
    private var state: URL!
    private var sessions: [ServiceSession] = []

    private static let fixtures = SourceTree.path("Tests/Fixtures")

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        try XCTSkipUnless(getuid() == 0, "network namespaces need root")
        for tool in ["/usr/sbin/ip", "/usr/sbin/avahi-daemon"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing")
        }
        state = FileManager.default.temporaryDirectory.appendingPathComponent("baton-netns-\(UUID().uuidString)")
        let up = try run(Self.fixtures.appendingPathComponent("avahi-netns-up.sh").path, [state.path])
        if up.status != 0 {
            _ = try? run(Self.fixtures.appendingPathComponent("avahi-netns-down.sh").path, [state.path])
            throw XCTSkip("this machine cannot make the namespaces: \(up.errorOutput.suffix(400))")
        }
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { sessions.forEach { $0.printLogs() } }
        sessions.forEach { $0.tearDown() }
        if let state { _ = try? run(Self.fixtures.appendingPathComponent("avahi-netns-down.sh").path, [state.path]) }
    }

    private func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, errorOutput: String) {
        let result = try FixtureScript.run(script, arguments)
        return (result.status, result.output)
    }

    private func device(_ name: String, namespace: String) throws -> (ServiceSession, ChildProcess) {
        let session = try ServiceSession()
        sessions.append(session)
        try session.startBus()
        let systemBus = "unix:path=\(state.appendingPathComponent("\(namespace.suffix(1))/bus.sock").path)"
        let batond = try session.startBatond(["--name", name], name: "batond-\(name)", namespace: namespace,
                                             environment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus])
        return (session, batond)
    }

    func testDevicesInTwoNamespacesFindEachOtherThroughDNSSDAndHandOver() throws {
        let (a, _) = try device("alpha", namespace: "baton-a")
        let (b, _) = try device("beta", namespace: "baton-b")
        var found: [String: Any]?
        XCTAssertTrue(waitUntil(timeout: 20) {
            let devices = try b.baton(["devices", "--json"]).json as? [[String: Any]] ?? []
            found = devices.first { $0["name"] as? String == "alpha" }
            return found != nil
        }, "B found A through DNS-SD")
        XCTAssertTrue((found?["address"] as? String ?? "").hasPrefix("10.77.0.1:"), "\(found ?? [:])")
        XCTAssertEqual(found?["connected"] as? Bool, false, "listed from its record, not dialed until B pairs with it")

        let request = try b.baton(["pair", "alpha"])
        XCTAssertEqual(request.status, 0, request.errorOutput)
        let code = try XCTUnwrap(request.output.split(separator: "\n").first { $0.hasPrefix("Verification code: ") }?
            .dropFirst("Verification code: ".count)).description
        var codeA: String?
        XCTAssertTrue(waitUntil {
            codeA = (try a.baton(["devices", "--json"]).json as? [[String: Any]] ?? [])
                .lazy.compactMap { $0["pairing-code"] as? String }.first
            return codeA != nil
        }, "A shows its own code")
        XCTAssertEqual(try a.baton(["pair", "--confirm", "beta", code]).status, 0)
        XCTAssertEqual(try b.baton(["pair", "--confirm", "alpha", XCTUnwrap(codeA)]).status, 0)

        let trace = b.root.appendingPathComponent("target.trace.jsonl")
        try b.installTestAppEntry(id: "org.baton.Target")
        _ = try a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "across namespaces"], name: "origin",
                        environment: ["BATON_TRACE": a.root.appendingPathComponent("origin.trace.jsonl").path])
        _ = try b.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "idle", "--app-id", "org.baton.Target"],
                        name: "target", environment: ["BATON_TRACE": trace.path])
        XCTAssertNotNil(b.waitForActivity(titled: "Note: idle"), "the target app registered on B")
        let id = try XCTUnwrap(b.waitForActivity(titled: "Note: across namespaces", timeout: 15)?["id"] as? String)
        let result = try b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil {
            TraceFile.events(at: trace).contains {
                $0["event"] as? String == "restored"
                    && ($0["userInfo"] as? [String: Any])?["text"] as? String == "across namespaces"
            }
        })

        // The doctor sees A announced and its own record on the network. With A's interface
        // down the record is gone and the check fails, saying what to look at; up, it passes.
        func discovery() throws -> [String: Any] {
            let records = try a.baton(["doctor", "--json"]).json as? [[String: Any]] ?? []
            return records.first { $0["check"] as? String == "discovery" } ?? [:]
        }
        XCTAssertTrue(waitUntil(timeout: 10) { try discovery()["ok"] as? Bool == true }, "\((try? discovery()) ?? [:])")
        XCTAssertTrue((try discovery()["detail"] as? String ?? "").contains("its record is seen when browsing"),
                      "\((try? discovery()) ?? [:])")
        XCTAssertEqual(try run("/usr/sbin/ip", ["-n", "baton-a", "link", "set", "baton-va", "down"]).status, 0)
        XCTAssertTrue(waitUntil(timeout: 20) { try discovery()["ok"] as? Bool == false }, "\((try? discovery()) ?? [:])")
        XCTAssertTrue((try discovery()["fix"] as? String ?? "").contains("allow-interfaces"), "\((try? discovery()) ?? [:])")
        XCTAssertEqual(try run("/usr/sbin/ip", ["-n", "baton-a", "link", "set", "baton-va", "up"]).status, 0)
        XCTAssertTrue(waitUntil(timeout: 30) { try discovery()["ok"] as? Bool == true }, "\((try? discovery()) ?? [:])")
    }
}
