import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// Strangers on the network against a real batond: a pairing request is never confirmed by a
/// click, requests are rate-limited and flagged when they borrow a paired device's name, and
/// unpaired devices can neither hold batond's places nor fill its log.
@MainActor
final class StrangerTests: BatondPeerTestCase {
    private var notifications: URL!

    override func setUp() async throws {
        try await super.setUp()
        // A person who clicks every notification the moment it appears.
        notifications = session.root.appendingPathComponent("notifications.jsonl")
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", notifications.path, "--invoke", "default"],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
    }

    private var shownNotifications: [[String: Any]] {
        ((try? String(contentsOf: notifications, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private var pairingNotifications: [[String: Any]] {
        shownNotifications.filter { ($0["summary"] as? String ?? "").contains("Pair") }
    }

    func testAClickOnAPairingNotificationPairsNothing() async throws {
        try startBatond()
        let stranger = try await connect(name: "Printer")
        let nonces = await stranger.requestPairing()
        let codes = stranger.revealAndConfirm(own: nonces.own, theirs: try XCTUnwrap(nonces.theirs))

        let shown = await eventually { !self.pairingNotifications.isEmpty }
        XCTAssertTrue(shown, "the request is shown to the person")
        let notification = try XCTUnwrap(pairingNotifications.first)
        XCTAssertEqual(notification["actions"] as? [String], ["default", "Enter Code", "enter-code", "Enter Code"],
                       "its one action opens the Baton app to type the code; none confirms")
        let summary = notification["summary"] as? String ?? ""
        let body = notification["body"] as? String ?? ""
        let shortID = String(stranger.identity.deviceID.prefix(8))
        XCTAssertTrue(summary.contains("Printer") && summary.contains(shortID), "name and short id: \(summary)")
        let grouped = "\(codes.batonds.prefix(3)) \(codes.batonds.suffix(3))"
        XCTAssertTrue(body.contains(grouped), "the code to type on the other device, grouped: \(body)")
        XCTAssertFalse(body.contains(codes.ours) || body.contains("\(codes.ours.prefix(3)) \(codes.ours.suffix(3))"),
                       "never the code to type here: \(body)")
        XCTAssertTrue(body.contains("choose Enter Code"), "how to confirm: \(body)")
        XCTAssertFalse(body.contains("baton pair"), "no command in a notification: \(body)")

        // The notification server clicked it (the default action) 0.2 s after it appeared.
        _ = await pumpMainLoop(timeout: 1.5) { false }
        XCTAssertEqual(try device(stranger.identity.deviceID)?["paired"] as? Bool, false,
                       "a click and the stranger's own confirmation pair nothing")
        XCTAssertFalse(stranger.received.contains { if case .offers = $0 { true } else { false } })

        // The code this screen shows does not confirm: typing the one the other device shows does.
        let own = try session.baton(["pair", "--confirm", shortID, codes.batonds])
        XCTAssertEqual(own.status, 1, "this device's own code confirms nothing")
        XCTAssertEqual(try device(stranger.identity.deviceID)?["paired"] as? Bool, false)
        let cancelled = await eventually { stranger.cancelReason != nil }
        XCTAssertTrue(cancelled, "a wrong code ends the pairing on both devices")
        let retry = await stranger.requestPairing()
        let retried = stranger.revealAndConfirm(own: retry.own, theirs: try XCTUnwrap(retry.theirs))
        let shownAgain = await eventually { try self.device(stranger.identity.deviceID)?["pairing-code"] != nil }
        XCTAssertTrue(shownAgain)
        stranger.link.isTrusted = true
        let confirm = try session.baton(["pair", "--confirm", shortID, retried.ours])
        XCTAssertEqual(confirm.status, 0, confirm.errorOutput)
        let paired = await eventually { try self.device(stranger.identity.deviceID)?["paired"] as? Bool == true }
        XCTAssertTrue(paired, "the person typed the code: paired")
    }

    func testPairingRequestsAreLimitedPerDeviceAndPerAddress() async throws {
        try startBatond()
        // One identity asking again and again: 3 a minute.
        let insistent = try await connect(name: "insistent")
        var answered = 0
        for _ in 0..<6 {
            if await insistent.requestPairing().theirs != nil { answered += 1 }
        }
        XCTAssertEqual(answered, 3, "3 requests a minute from one device")
        XCTAssertTrue(insistent.cancelReason?.contains("too many pairing requests") == true,
                      "\(insistent.cancelReason ?? "no cancel")")

        // Many identities from one address: never more than 4 waiting for the person, and
        // never more than 6 a minute from one address.
        var accepted = 0
        for index in 0..<10 {
            let stranger = try await connect(name: "stranger \(index)")
            let nonces = await stranger.requestPairing()
            guard let theirs = nonces.theirs else { continue }
            accepted += 1
            _ = stranger.revealAndConfirm(own: nonces.own, theirs: theirs)
        }
        XCTAssertLessThanOrEqual(accepted, 4, "at most 4 pairings wait for the person at once")
        _ = await pumpMainLoop(timeout: 1) { false }
        XCTAssertLessThanOrEqual(pairingNotifications.count, 4 + 3, "a flood of requests does not flood the screen")
    }

    func testRequestersThatNeverRevealHoldNoPlace() async throws {
        try startBatond()
        let first = try await connect(name: "silent 1")
        let firstNonces = await first.requestPairing()
        XCTAssertNotNil(firstNonces.theirs)
        // A second request from the same address takes the only place an address has.
        let second = try await connect(name: "silent 2")
        let secondNonces = await second.requestPairing()
        XCTAssertNotNil(secondNonces.theirs, "a newer request is answered")
        let evicted = await eventually { first.cancelReason != nil }
        XCTAssertTrue(evicted, "the older request from that address ends")
        XCTAssertEqual(try device(first.identity.deviceID)?["pairing-code"] as? String, nil)
        // One that never reveals its nonce is dropped after 10 s, before anyone is prompted.
        let dropped = await eventually(timeout: 15) { second.cancelReason != nil }
        XCTAssertTrue(dropped, "a requester that does not reveal is dropped")
        XCTAssertTrue(second.cancelReason?.contains("no answer in time") == true, "\(second.cancelReason ?? "")")
        XCTAssertTrue(pairingNotifications.isEmpty, "nobody was prompted: \(pairingNotifications)")
    }

    func testARequestUnderAPairedDevicesNameIsFlagged() async throws {
        try startBatond()
        let real = try await connect(name: "beta")
        let nonces = await real.requestPairing()
        let codes = real.revealAndConfirm(own: nonces.own, theirs: try XCTUnwrap(nonces.theirs))
        real.link.isTrusted = true
        let revealed = await eventually { try self.device(real.identity.deviceID)?["pairing-code"] as? String == codes.batonds }
        XCTAssertTrue(revealed)
        XCTAssertEqual(try session.baton(["pair", "--confirm", real.identity.deviceID, codes.ours]).status, 0)
        let paired = await eventually { try self.device(real.identity.deviceID)?["paired"] as? Bool == true }
        XCTAssertTrue(paired)

        let impostor = try await connect(name: "Beta")
        let impostorNonces = await impostor.requestPairing()
        _ = impostor.revealAndConfirm(own: impostorNonces.own, theirs: try XCTUnwrap(impostorNonces.theirs))
        let flagged = await eventually {
            self.pairingNotifications.contains { ($0["summary"] as? String ?? "").contains("another device named") }
        }
        XCTAssertTrue(flagged, "\(pairingNotifications)")
        let warning = try XCTUnwrap(pairingNotifications.last)
        XCTAssertTrue((warning["body"] as? String ?? "").contains("not your paired “beta” (\(real.identity.deviceID.prefix(8)))"),
                      "\(warning)")
        XCTAssertTrue((warning["summary"] as? String ?? "").contains(String(impostor.identity.deviceID.prefix(8))))
    }

    func testARequestUnderALookAlikeOfAPairedDevicesNameIsFlagged() async throws {
        try startBatond()
        let real = try await connect(name: "B")
        try await real.pair(with: session)

        // A Cyrillic capital Ve: it looks like B, though its lowercase в looks like no b.
        let impostor = try await connect(name: "\u{0412}")
        let nonces = await impostor.requestPairing()
        _ = impostor.revealAndConfirm(own: nonces.own, theirs: try XCTUnwrap(nonces.theirs))
        let flagged = await eventually {
            self.pairingNotifications.contains { ($0["summary"] as? String ?? "").contains("another device named") }
        }
        XCTAssertTrue(flagged, "\(pairingNotifications)")
        let warning = try XCTUnwrap(pairingNotifications.last)
        XCTAssertTrue((warning["body"] as? String ?? "").contains("not your paired “B” (\(real.identity.deviceID.prefix(8)))"),
                      "\(warning)")
    }

    func testUnpairedDevicesCannotHoldPlacesNorFillTheLog() async throws {
        try startBatond(named: "alpha", ["--unpaired-link-lifetime", "3", "--log-level", "info"])
        var strangers: [TestPeer] = []
        for index in 0..<12 {
            strangers.append(try await connect(name: "mallory \(index)"))
        }
        let newcomer = try await connect(name: "newcomer")
        let listed = await eventually { try self.device(newcomer.identity.deviceID)?["connected"] as? Bool == true }
        XCTAssertTrue(listed, "a newcomer gets in: the oldest stranger's place is taken back")
        let linked = try (session.baton(["devices", "--json"]).json as? [[String: Any]] ?? [])
            .filter { $0["connected"] as? Bool == true }
        XCTAssertLessThanOrEqual(linked.count, 4, "at most 4 unpaired links from one address: \(linked)")

        let expired = await eventually(timeout: 8) { strangers.allSatisfy(\.isClosed) && newcomer.isClosed }
        XCTAssertTrue(expired, "unpaired links without a pairing close after their lifetime")
        let record = try XCTUnwrap(try device(newcomer.identity.deviceID), "a device seen lately stays listed")
        XCTAssertEqual(record["connected"] as? Bool, false)

        for index in 0..<40 {
            _ = try await connect(name: "flood \(index)")
        }
        _ = await pumpMainLoop(timeout: 1) { false }
        let batondLog = session.root.appendingPathComponent("batond.log")
        let lines = ((try? String(contentsOf: batondLog, encoding: .utf8)) ?? "").split(separator: "\n")
        let aboutStrangers = lines.filter { $0.contains("mallory") || $0.contains("flood") || $0.contains("newcomer") }
        XCTAssertLessThanOrEqual(aboutStrangers.count, 20, "at most 20 lines a minute about unpaired devices")
        XCTAssertGreaterThan(aboutStrangers.count, 0)
    }
}
