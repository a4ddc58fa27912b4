import Foundation
import ServiceFixtures
import XCTest

/// Two paired devices that cannot dial each other link through a relay server (Debian's
/// `strelaysrv`, private) and hand an activity over: the two batonds run in two network
/// namespaces, paired over their veth link, then restarted listening only on their own
/// loopback, so neither can reach the other but both reach the relay (in A's namespace, on
/// the link's address). B lists A's activity and fetches its payload through the relay.
final class RelayLinkTests: XCTestCase {
    private var namespaces: NetworkNamespacePair!
    private var relay: RelayServer!
    private var devices: DevicePair!

    override func setUpWithError() throws {
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement, RelayServer.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        namespaces = try NetworkNamespacePair(prefix: "baton-relay")
        relay = try RelayServer()
        try relay.start(host: namespaces.addressA, port: 22067, namespace: namespaces.a)
        devices = try DevicePair(batondArguments: ["--relay", relay.address], namespaces: namespaces)
        try devices.pair()
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            devices?.printLogs()
            print("--- relay\n\(relay?.log.suffix(2000) ?? "")")
        }
        devices?.tearDown()
        relay?.remove()
        namespaces?.remove()
    }

    func testPairedDevicesThatCannotDialEachOtherHandOffThroughTheRelay() throws {
        try devices.a.installTestAppEntry(id: "org.baton.TestApp")
        let app = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "carried by the relay"], name: "app")
        XCTAssertNotNil(devices.b.waitForActivity(titled: "Note: carried by the relay", timeout: 15), "B lists A's note directly")

        // Neither can reach the other now: each listens on its own loopback only.
        devices.batondA.stop()
        devices.batondB.stop()
        let alone = ["--no-discovery", "--listen", "127.0.0.1:0", "--relay", relay.address]
        let batondA = try devices.a.startBatond(["--name", "alpha"] + alone, name: "batond-a2", namespace: namespaces.a)
        let batondB = try devices.b.startBatond(["--name", "beta"] + alone, name: "batond-b2", namespace: namespaces.b)
        XCTAssertTrue(waitUntil(timeout: 30) { try self.devices.device(self.devices.idA, on: self.devices.b)?["connected"] as? Bool == true },
                      "B linked with A through the relay")
        XCTAssertEqual(try devices.device(devices.idA, on: devices.b)?["relay"] as? String, "\(namespaces.addressA):22067",
                       "the link is the relay's: \(batondB.log.suffix(1500)) \(batondA.log.suffix(500))")
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: carried by the relay", timeout: 20), "B lists A's note again")
        let id = try XCTUnwrap(offer["id"] as? String)
        let inspected = try devices.b.baton(["inspect", id, "--json"])
        XCTAssertEqual(inspected.status, 0, inspected.errorOutput)
        let userInfo = (inspected.json as? [String: Any])?["userInfo"] as? [String: Any]
        XCTAssertEqual(userInfo?["text"] as? String, "carried by the relay", "the payload came through the relay")
        let doctor = try devices.b.baton(["doctor"]).output
        XCTAssertTrue(doctor.contains("✔ relay \(namespaces.addressA):22067: joined"), doctor)
        // Joining a relay's session waits a moment on a GLib timer, not on Task.sleep's
        // libdispatch timer, whose manager thread would start libdispatch's pool monitor.
        for batond in [batondA, batondB] {
            XCTAssertEqual(batond.libdispatchWorkers, [], "libdispatch's worker threads in batond: \(batond.threadNames)")
        }
        app.stop()
    }

    func testADirectLinkTakesOverFromTheRelayOnceOneIsPossible() throws {
        // A listens only on its own loopback; B on its link address, but on a new port, so
        // A's dials to where it last saw B fail, and the two link through the relay. B's hello
        // there names its new port: A dials it at B's last address, and that direct link
        // replaces the relay's.
        devices.batondA.stop()
        devices.batondB.stop()
        let alone = ["--no-discovery", "--relay", relay.address]
        let batondA = try devices.a.startBatond(["--name", "alpha", "--listen", "127.0.0.1:0"] + alone, name: "batond-a2",
                                                namespace: namespaces.a)
        try devices.b.startBatond(["--name", "beta", "--listen", "\(namespaces.addressB):0"] + alone, name: "batond-b2",
                                  namespace: namespaces.b)
        func record() throws -> [String: Any]? { try devices.device(devices.idB, on: devices.a) }
        XCTAssertTrue(waitUntil(timeout: 30) { batondA.log.contains("linked with beta (\(self.devices.idB)) at \(self.namespaces.addressA):22067") },
                      "linked through the relay first: \(batondA.log.suffix(2000))")
        XCTAssertTrue(waitUntil(timeout: 30) { try record()?["connected"] as? Bool == true && record()?["relay"] == nil },
                      "then directly: \(String(describing: try? record()))")
        Thread.sleep(forTimeInterval: 12)
        XCTAssertTrue(try record()?["connected"] as? Bool == true && record()?["relay"] == nil,
                      "the direct link stays: the relay's does not replace it")
        let table = try devices.a.baton(["devices"]).output
        XCTAssertTrue(table.contains("paired, connected") && !table.contains("through the relay"), table)
    }
}
