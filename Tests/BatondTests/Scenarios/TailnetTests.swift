import Foundation
import ServiceFixtures
import XCTest

/// The user's tailnet: batond reads its devices from tailscaled's LocalAPI socket and dials
/// the ones that may run batond at batond's port, while they are listed. Two real batonds in
/// two network namespaces, neither with DNS-SD nor a static peer: A finds B only because the
/// tailnet lists it. tailscaled is a stand-in (`BatonTestApp tailscale-localapi`, Tailscale
/// is not packaged in Debian 12) answering `GET /localapi/v0/status` with the status a test
/// writes, in tailscaled's shape.
final class TailnetTests: XCTestCase {
    private var namespaces: NetworkNamespacePair!
    private var sessionA: ServiceSession!
    private var sessionB: ServiceSession!
    private var batondA: ChildProcess!
    private var batondB: ChildProcess!
    private var statusFile: URL!

    override func setUpWithError() throws {
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        namespaces = try NetworkNamespacePair(prefix: "baton-tail")
        sessionA = try ServiceSession()
        sessionB = try ServiceSession()
        try sessionA.startBus()
        try sessionB.startBus()
        statusFile = sessionA.root.appendingPathComponent("tailscale-status.json")
        try writeStatus(laptopOnline: true)
        let socket = sessionA.root.appendingPathComponent("tailscaled.sock")
        let tailscaled = try sessionA.start(ServiceSession.product("BatonTestApp"),
                                            ["tailscale-localapi", "--socket", socket.path, "--status", statusFile.path], name: "tailscaled")
        XCTAssertTrue(waitUntil { tailscaled.log.contains("tailscaled stand-in ready") }, tailscaled.log)
        batondB = try startB()
        batondA = try startA()
    }

    /// A's batond, reading the tailnet from the stand-in every second.
    private func startA(name: String = "batond-a") throws -> ChildProcess {
        try sessionA.startBatond(["--name", "alpha", "--listen", "\(namespaces.addressA):0", "--no-discovery",
                                  "--tailscale-socket", sessionA.root.appendingPathComponent("tailscaled.sock").path,
                                  "--tailnet-interval", "1"],
                                 name: name, namespace: namespaces.a)
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            sessionA?.printLogs(label: "A/", limit: 4000)
            sessionB?.printLogs(label: "B/", limit: 4000)
        }
        sessionA?.tearDown()
        sessionB?.tearDown()
        namespaces?.remove()
    }

    /// B's batond, on batond's default port, as a device of the tailnet runs it.
    private func startB(name: String = "batond-b") throws -> ChildProcess {
        try sessionB.startBatond(["--name", "beta", "--listen", "\(namespaces.addressB):48100", "--no-discovery", "--no-tailnet"],
                                 name: name, namespace: namespaces.b)
    }

    /// The tailnet as tailscaled lists it: this desk, B ("laptop") online or not, a "server"
    /// online or not where nothing answers, a phone, a colleague's machine and one shared in
    /// from another tailnet (none of those three dialed).
    private func writeStatus(laptopOnline: Bool, serverOnline: Bool = false, backend: String = "Running") throws {
        func node(_ name: String, _ os: String, _ online: Bool, _ ips: [String], user: Int = 7, extra: [String: Any] = [:]) -> [String: Any] {
            ["HostName": name, "DNSName": "\(name).tail1234.ts.net.", "OS": os, "Online": online, "TailscaleIPs": ips, "UserID": user]
                .merging(extra) { $1 }
        }
        let status: [String: Any] = [
            "Version": "1.76.1", "BackendState": backend, "MagicDNSSuffix": "tail1234.ts.net",
            "Self": node("desk", "linux", true, [namespaces.addressA]),
            "Peer": [
                "nodekey:01": node("laptop", "linux", laptopOnline, [namespaces.addressB, "fd7a:115c:a1e0::2"]),
                "nodekey:02": node("pixel", "android", true, ["10.78.0.7"]),
                "nodekey:03": node("server", "linux", serverOnline, [Self.server]),
                "nodekey:04": node("colleague", "linux", true, ["10.78.0.8"], user: 8),
                "nodekey:05": node("guest", "linux", true, ["10.78.0.9"], extra: ["ShareeNode": true]),
            ],
        ]
        try JSONSerialization.data(withJSONObject: status).write(to: statusFile, options: .atomic)
    }

    /// Where the tailnet's "server" is said to be, and nothing answers.
    private static let server = "10.78.0.5"

    /// How many dials of the server failed so far, per A's log.
    private var failedDialsOfServer: Int {
        batondA.log.components(separatedBy: "dialing \(Self.server):48100 failed").count - 1
    }

    private func recordOfB() throws -> [String: Any]? {
        (try sessionA.baton(["devices", "--json"]).json as? [[String: Any]])?.first { $0["name"] as? String == "beta" }
    }

    private func tailnetOfA() throws -> [String]? {
        (try sessionA.baton(["status", "--json"]).json as? [String: Any])?["tailnet"] as? [String]
    }

    func testADeviceTheTailnetListsIsDialedWhileItIsListed() throws {
        XCTAssertTrue(waitUntil(timeout: 15) { try self.recordOfB()?["connected"] as? Bool == true },
                      "A found B through the tailnet alone: \(String(describing: try? recordOfB()))")
        XCTAssertEqual(try recordOfB()?["paired"] as? Bool, false, "listed like any device nearby: nothing before pairing")
        XCTAssertEqual(try tailnetOfA(), ["laptop (\(namespaces.addressB))"], "neither the phone nor the offline server")
        let status = try sessionA.baton(["status"]).output
        XCTAssertTrue(status.contains("tailnet: laptop (\(namespaces.addressB))"), status)
        let doctor = try sessionA.baton(["doctor"]).output
        XCTAssertTrue(doctor.contains("✔ tailnet: tailscaled is connected: 1 device(s)"), doctor)

        // The laptop goes offline on the tailnet: A, started again, does not dial it.
        try writeStatus(laptopOnline: false)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.tailnetOfA() == [] }, "\(String(describing: try? tailnetOfA()))")
        XCTAssertTrue(try sessionA.baton(["status"]).output.contains("tailnet: no device to dial"))
        batondA.stop()
        batondA = try startA(name: "batond-a2")
        XCTAssertTrue(waitUntil(timeout: 10) { try self.tailnetOfA() == [] })
        Thread.sleep(forTimeInterval: 4)
        XCTAssertNil(try recordOfB(), "a device the tailnet does not list is not dialed")

        // Back online: A dials it as soon as it reads so.
        try writeStatus(laptopOnline: true)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.recordOfB()?["connected"] as? Bool == true },
                      "A dials B once the tailnet lists it again")

        // A device listed where nothing answers is dialed again and again, until the tailnet
        // no longer lists it: then not once more.
        try writeStatus(laptopOnline: true, serverOnline: true)
        XCTAssertTrue(waitUntil(timeout: 20) { self.failedDialsOfServer >= 2 }, "A dials the server: \(batondA.log.suffix(1500))")
        try writeStatus(laptopOnline: true, serverOnline: false)
        XCTAssertTrue(waitUntil(timeout: 10) { try self.tailnetOfA() == ["laptop (\(self.namespaces.addressB))"] })
        Thread.sleep(forTimeInterval: 4)
        let afterRemoval = failedDialsOfServer
        Thread.sleep(forTimeInterval: 12)
        XCTAssertEqual(failedDialsOfServer, afterRemoval, "no dial of a device the tailnet no longer lists")
        for address in ["10.78.0.7", "10.78.0.8", "10.78.0.9"] {
            XCTAssertFalse(batondA.log.contains("dialing \(address)"), "the phone, the colleague's and the guest's are never dialed")
        }
    }

    func testAnUnreadableOrStoppedTailscaledIsSaidOnceAndItsDevicesAreNotDialed() throws {
        XCTAssertTrue(waitUntil(timeout: 15) { try self.recordOfB()?["connected"] as? Bool == true })
        try "{\"Peer\": \"\u{1B}[31mnot a status".write(to: statusFile, atomically: true, encoding: .utf8)
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.sessionA.baton(["doctor"]).output.contains("✘ tailnet: cannot read the tailnet's devices: the status is not a JSON object")
        }, (try? sessionA.baton(["doctor"]).output) ?? "")
        XCTAssertEqual(try tailnetOfA(), [])
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(batondA.log.components(separatedBy: "cannot read tailscaled's status").count - 1, 1,
                       "said once, not at every read: \(batondA.log.suffix(1500))")
        XCTAssertFalse(batondA.log.contains("\u{1B}"), "nothing of the answer reaches the log")

        try writeStatus(laptopOnline: true, backend: "Stopped")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.sessionA.baton(["doctor"]).output.contains("✔ tailnet: tailscaled runs but is not connected")
        })
        XCTAssertEqual(try tailnetOfA(), [], "a stopped tailscaled lists no one to dial")
    }
}
