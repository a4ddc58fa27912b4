import Foundation
import ServiceFixtures
import XCTest

/// A paired device that moves to another network is dialed at its new address, found through
/// DNS-SD, and its old address is forgotten: two namespaces with their own avahi-daemons on one
/// link (Tests/Fixtures/avahi-netns-up.sh, namespaces `bmove-a` and `bmove-b`). B is on both networks (10.77.0.2 and 10.79.0.2),
/// A moves from 10.77.0.1 to 10.79.0.1, from where B's old address, the one A knows, cannot be
/// reached: only B can dial, at the address A now announces, while B's link with A still
/// reaches the old address and looks alive (it is quiet, and the kernel's watch takes 20 s).
final class MovedDeviceTests: XCTestCase {
    private var state: URL!
    private var sessions: [ServiceSession] = []

    private static let fixtures = SourceTree.path("Tests/Fixtures")
    /// The namespaces' names start with this (`bmove-a`, `bmove-b`), their veth ends' too.
    private static let prefix = "bmove"

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        try XCTSkipUnless(getuid() == 0, "network namespaces need root")
        for tool in ["/usr/sbin/ip", "/usr/sbin/avahi-daemon"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing")
        }
        state = FileManager.default.temporaryDirectory.appendingPathComponent("baton-moved-\(UUID().uuidString)")
        let up = try run(Self.fixtures.appendingPathComponent("avahi-netns-up.sh").path, [state.path, Self.prefix])
        if up.status != 0 {
            _ = try? run(Self.fixtures.appendingPathComponent("avahi-netns-down.sh").path, [state.path, Self.prefix])
            throw XCTSkip("this machine cannot make the namespaces: \(up.errorOutput.suffix(400))")
        }
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 { sessions.forEach { $0.printLogs() } }
        sessions.forEach { $0.tearDown() }
        if let state { _ = try? run(Self.fixtures.appendingPathComponent("avahi-netns-down.sh").path, [state.path, Self.prefix]) }
    }

    @discardableResult
    private func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, errorOutput: String) {
        let result = try FixtureScript.run(program, arguments)
        return (result.status, result.output)
    }

    private func ip(_ arguments: [String]) throws {
        let result = try run("/usr/sbin/ip", arguments)
        guard result.status == 0 else { throw FixtureError("ip \(arguments.joined(separator: " ")): \(result.errorOutput)") }
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

    private func record(_ name: String, on session: ServiceSession) throws -> [String: Any]? {
        (try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []).first { $0["name"] as? String == name }
    }

    func testAPairedDeviceThatMovedIsDialedAtItsNewAddressAndItsOldOneForgotten() throws {
        let (a, _) = try device("alpha", namespace: "bmove-a")
        let (b, batondB) = try device("beta", namespace: "bmove-b")
        // Listed from its DNS-SD record, not linked: pairing dials it.
        XCTAssertTrue(waitUntil(timeout: 20) { try self.record("alpha", on: b) != nil }, "B found A through DNS-SD")
        let request = try b.baton(["pair", "alpha"])
        XCTAssertEqual(request.status, 0, request.errorOutput)
        let code = try XCTUnwrap(request.output.split(separator: "\n").first { $0.hasPrefix("Verification code: ") }?
            .dropFirst("Verification code: ".count)).description
        var codeA: String?
        XCTAssertTrue(waitUntil {
            codeA = try self.record("beta", on: a)?["pairing-code"] as? String
            return codeA != nil
        }, "A shows its own code")
        XCTAssertEqual(try a.baton(["pair", "--confirm", "beta", code]).status, 0)
        XCTAssertEqual(try b.baton(["pair", "--confirm", "alpha", XCTUnwrap(codeA)]).status, 0)
        let oldAddress = try XCTUnwrap(record("alpha", on: b)?["address"] as? String)
        XCTAssertTrue(oldAddress.hasPrefix("10.77.0.1:"), oldAddress)
        let port = try XCTUnwrap(oldAddress.split(separator: ":").last).description

        // B joins the second network as well; then A moves there.
        try ip(["-n", "bmove-b", "addr", "add", "10.79.0.2/24", "dev", "bmove-vb"])
        Thread.sleep(forTimeInterval: 2)
        try ip(["-n", "bmove-a", "addr", "flush", "dev", "bmove-va"])
        try ip(["-n", "bmove-a", "addr", "add", "10.79.0.1/24", "dev", "bmove-va"])
        let moved = Date()
        let newAddress = "10.79.0.1:\(port)"
        XCTAssertTrue(waitUntil(timeout: 30) {
            let record = try self.record("alpha", on: b)
            return record?["connected"] as? Bool == true && record?["address"] as? String == newAddress
        }, "B linked with A at its new address: \((try? self.record("alpha", on: b)) ?? [:])")
        let relinked = Date().timeIntervalSince(moved)
        print("a paired device that moved to another network was linked at its new address after \(String(format: "%.1f", relinked)) s")
        XCTAssertLessThan(relinked, 10, "not after the old link's 20 s of the kernel's watch")
        XCTAssertTrue(batondB.log.contains("linked with alpha") && batondB.log.contains("at \(newAddress)"),
                      "B dialed A at its new address: \(batondB.log.suffix(1500))")

        // The old address is forgotten: the paired record holds the new one, and B does not
        // dial the old one once the link drops.
        let file = b.root.appendingPathComponent("config/baton/paired-devices.json")
        let paired = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
        XCTAssertEqual(paired.first?["address"] as? String, newAddress)
        let dialsBefore = batondB.log.components(separatedBy: "dialing \(oldAddress)").count
        try ip(["-n", "bmove-a", "link", "set", "bmove-va", "down"])
        XCTAssertTrue(waitUntil(timeout: 45) { try self.record("alpha", on: b)?["connected"] as? Bool == false },
                      "B noticed A gone")
        Thread.sleep(forTimeInterval: 5)
        XCTAssertEqual(batondB.log.components(separatedBy: "dialing \(oldAddress)").count, dialsBefore,
                       "B no longer dials A's old address: \(batondB.log.suffix(1500))")
    }
}
