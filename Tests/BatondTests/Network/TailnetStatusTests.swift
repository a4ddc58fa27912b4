@testable import batond
import Foundation
import XCTest

/// Reading tailscaled's status (`GET /localapi/v0/status`): which of the tailnet's devices
/// batond dials, at which address, and what it refuses.
final class TailnetStatusTests: XCTestCase {
    private func status(_ object: Any) throws -> TailnetStatus {
        try TailnetStatus(json: Array(JSONSerialization.data(withJSONObject: object)))
    }

    private func peer(_ name: String, os: String?, online: Bool, ips: [String]) -> [String: Any] {
        var peer: [String: Any] = ["HostName": name, "DNSName": "\(name).tail1234.ts.net.", "Online": online, "TailscaleIPs": ips]
        if let os { peer["OS"] = os }
        return peer
    }

    func testOnlineLinuxPeersAreDialedAtTheirIPv4Address() throws {
        let read = try status([
            "BackendState": "Running",
            "Self": peer("desk", os: "linux", online: true, ips: ["100.64.0.1"]),
            "Peer": [
                "nodekey:b": peer("laptop", os: "linux", online: true, ips: ["fd7a:115c:a1e0::5", "100.64.0.5"]),
                "nodekey:a": peer("server", os: nil, online: true, ips: ["fd7a:115c:a1e0::6"]),
                "nodekey:c": peer("pixel", os: "android", online: true, ips: ["100.64.0.7"]),
                "nodekey:d": peer("old", os: "linux", online: false, ips: ["100.64.0.8"]),
                "nodekey:e": peer("mac", os: "macOS", online: true, ips: ["100.64.0.9"]),
                "nodekey:f": peer("nameonly", os: "linux", online: true, ips: ["laptop.example.org", "100.64.0.10:80"]),
            ],
        ])
        XCTAssertTrue(read.isRunning)
        XCTAssertEqual(read.peers, [TailnetStatus.Peer(name: "laptop", address: "100.64.0.5"),
                                    TailnetStatus.Peer(name: "server", address: "fd7a:115c:a1e0::6")],
                       "online Linux (or unnamed OS) peers, IPv4 first; no phone, Mac, offline peer, host name or port")
    }

    func testAStoppedTailscaleListsNoOne() throws {
        let read = try status(["BackendState": "Stopped", "Peer": ["nodekey:b": peer("laptop", os: "linux", online: true, ips: ["100.64.0.5"])]])
        XCTAssertFalse(read.isRunning)
        XCTAssertEqual(read.peers, [])
        XCTAssertEqual(try status(["BackendState": "NeedsLogin", "Peer": NSNull()]).peers, [])
    }

    func testNamesAreCleanedAndShortened() throws {
        let hostile = "evil\u{1B}[31m\u{202E}name" + String(repeating: "x", count: 200)
        let read = try status(["BackendState": "Running", "Peer": ["k": peer(hostile, os: "linux", online: true, ips: ["100.64.0.5"])]])
        let name = try XCTUnwrap(read.peers.first?.name)
        XCTAssertFalse(name.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" }, name)
        XCTAssertEqual(name.count, TailnetStatus.maximumNameLength)
    }

    func testAtMostTheLimitOfPeers() throws {
        var peers: [String: Any] = [:]
        for index in 0..<300 { peers["k\(index)"] = peer("p\(index)", os: "linux", online: true, ips: ["100.64.\(index / 250).\(index % 250 + 1)"]) }
        XCTAssertEqual(try status(["BackendState": "Running", "Peer": peers]).peers.count, TailnetStatus.maximumPeers)
    }

    func testWhatIsNotAStatusIsRefused() {
        let cases: [(String, String)] = [
            ("not json", "the status is not a JSON object"),
            ("[1, 2]", "the status is not a JSON object"),
            ("{\"Peer\": {}}", "the status has no BackendState"),
            ("{\"BackendState\": \"Running\", \"Peer\": [1]}", "the status's Peer is not an object"),
            ("{\"BackendState\": \"Running\", \"Peer\": {\"k\": 3}}", "a peer is not an object"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try TailnetStatus(json: Array(text.utf8)), text) { error in
                XCTAssertEqual((error as? TailnetStatusError)?.description, reason, text)
            }
        }
        XCTAssertThrowsError(try TailnetStatus(json: [UInt8](repeating: 0x20, count: TailnetStatus.maximumSize + 1)))
    }

    func testOnlyTheUsersOwnDevicesAreDialed() throws {
        var own = peer("laptop", os: "linux", online: true, ips: ["100.64.0.5"])
        own["UserID"] = 123
        var colleague = peer("colleague", os: "linux", online: true, ips: ["100.64.0.6"])
        colleague["UserID"] = 456
        var shared = peer("shared", os: "linux", online: true, ips: ["100.64.0.7"])
        shared["UserID"] = 123
        shared["ShareeNode"] = true
        var me = peer("desk", os: "linux", online: true, ips: ["100.64.0.1"])
        me["UserID"] = 123
        let read = try status(["BackendState": "Running", "Self": me, "Peer": ["a": own, "b": colleague, "c": shared]])
        XCTAssertEqual(read.peers.map(\.name), ["laptop"], "not another user's device, nor one shared in")
    }

    func testAnAddressIsOnlyAnAddress() throws {
        let read = try status(["BackendState": "Running",
                               "Peer": ["a": peer("nul", os: "linux", online: true, ips: ["100.64.0.5\u{0}\u{1B}[31mx", "100.64.0.6"])]])
        XCTAssertEqual(read.peers.map(\.address), ["100.64.0.6"], "nothing hidden after a NUL")
        XCTAssertFalse(TailnetStatus.isAddress("100.64.0.5\u{0}x", family: AF_INET))
        XCTAssertTrue(TailnetStatus.isAddress("fd7a:115c:a1e0::5", family: AF_INET6))
    }
}
