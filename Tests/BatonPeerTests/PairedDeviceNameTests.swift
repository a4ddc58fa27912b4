import BatonBus
import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// Paired devices played by the test against a real batond named “Evil”: whatever name a
/// paired device says hello or renames itself with, it is never shown (in the device list, its
/// offers, the pinned list) by this device's name, another paired device's, or a look-alike
/// of either; and however fast it sends, it makes batond log a bounded number of lines.
@MainActor
final class PairedDeviceNameTests: BatondPeerTestCase {
    /// Starts batond and names it “Evil” as its person would (not with `--name`, which would
    /// keep it from being renamed).
    private func startBatondNamedEvil(_ arguments: [String] = []) throws {
        try startBatond(named: nil, arguments)
        let named = try session.baton(["settings", "name", "Evil"])
        XCTAssertEqual(named.status, 0, named.errorOutput)
    }

    private func sendOffer(from peer: TestPeer) {
        let short = String(peer.identity.deviceID.prefix(8))
        peer.link.send(.offers([PeerOffer(id: "offer\(short)", summary: ActivitySummary(activityType: "org.baton.test.note",
                                                                                        title: "Note from \(short)"),
                                          appID: "org.baton.TestApp", teamID: "org.baton.test")]))
    }

    /// A device of the test's, paired with batond, offering one activity.
    private func pairedPeer(named name: String) async throws -> TestPeer {
        let peer = try await connect(name: name)
        try await peer.pair(with: session)
        sendOffer(from: peer)
        let listed = await eventually { try self.offerDevice(of: peer) != nil }
        XCTAssertTrue(listed, "batond lists the offer of \(name)")
        return peer
    }

    private func shownName(of peer: TestPeer) throws -> String? {
        try device(peer.identity.deviceID)?["name"] as? String
    }

    /// The device batond names `peer`'s offer by: the same name makes the "Continued from
    /// ‹device›" folder of a document copied from it, and the copy's origin.
    private func offerDevice(of peer: TestPeer) throws -> String? {
        try session.activities().first { $0["device-id"] as? String == peer.identity.deviceID }?["device"] as? String
    }

    private func pinnedName(of peer: TestPeer) throws -> String? {
        let file = session.root.appendingPathComponent("config/baton/paired-devices.json")
        let list = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]] ?? []
        return list.first { $0["id"] as? String == peer.identity.deviceID }?["name"] as? String
    }

    /// Renames `peer` to `name` and waits until batond lists it by another name than before.
    private func rename(_ peer: TestPeer, to name: String) async throws {
        let before = try shownName(of: peer)
        peer.link.send(.renamed(name: name))
        let renamed = await eventually { try self.shownName(of: peer) != before }
        XCTAssertTrue(renamed, "batond takes the rename to \(name.debugDescription)")
    }

    /// `peer`, which calls itself `claimed`, is shown everywhere by a name that cannot be taken
    /// for `other`'s, without invisible characters or surrounding white space.
    private func assertShown(_ peer: TestPeer, claiming claimed: String, apartFrom other: String,
                             file: StaticString = #filePath, line: UInt = #line) async throws {
        let shown = try XCTUnwrap(try shownName(of: peer), file: file, line: line)
        XCTAssertNotEqual(DeviceNameSkeleton(shown), DeviceNameSkeleton(other),
                          "\(claimed.debugDescription) is shown as \(shown.debugDescription), which passes for \(other)",
                          file: file, line: line)
        let short = String(peer.identity.deviceID.prefix(8))
        XCTAssertEqual(shown, "\(DeviceNameSkeleton.cleaned(claimed)) (\(short))", "flagged with its short id",
                       file: file, line: line)
        XCTAssertFalse(shown.unicodeScalars.contains { $0.value == 0x200B || $0.value == 0xFEFF }, file: file, line: line)
        let offerNamed = await eventually { try self.offerDevice(of: peer) == shown }
        XCTAssertTrue(offerNamed, "its offer names it so: \(String(describing: try? offerDevice(of: peer)))",
                      file: file, line: line)
        XCTAssertEqual(try pinnedName(of: peer), shown, "pinned so", file: file, line: line)
    }

    /// Closes `peer`'s link and links again with its identity, saying hello as `name`.
    private func relink(_ peer: TestPeer, as name: String) async throws -> TestPeer {
        peer.link.close("relinking")
        let unlinked = await eventually { try self.device(peer.identity.deviceID)?["connected"] as? Bool == false }
        XCTAssertTrue(unlinked)
        let again = try await connect(name: name, identity: peer.identity)
        again.link.isTrusted = true
        let linked = await eventually { try self.device(peer.identity.deviceID)?["connected"] as? Bool == true }
        XCTAssertTrue(linked)
        sendOffer(from: again)
        return again
    }

    func testAPairedDeviceIsNeverShownByThisDevicesNameNorALookAlike() async throws {
        try startBatondNamedEvil()
        let mallory = try await pairedPeer(named: "mallory")
        XCTAssertEqual(try shownName(of: mallory), "mallory")
        // Ten renames a minute are taken: between two hostile names, a name of its own.
        for (index, hostile) in ["Evil", "\u{0395}vil", "Evil\u{200B}", "Evil ", "eViL"].enumerated() {
            if index > 0 {
                try await rename(mallory, to: "mallory")
                XCTAssertEqual(try shownName(of: mallory), "mallory", "a name of its own is shown as it is")
            }
            try await rename(mallory, to: hostile)
            try await assertShown(mallory, claiming: hostile, apartFrom: "Evil")
        }
        let again = try await relink(mallory, as: "\u{FEFF}Evil")
        try await assertShown(again, claiming: "Evil", apartFrom: "Evil")

        // This device named like a paired device: that device is told apart from it.
        again.link.send(.renamed(name: "Kitchen"))
        let kitchen = await eventually { try self.shownName(of: again) == "Kitchen" }
        XCTAssertTrue(kitchen)
        let rename = try session.baton(["settings", "name", "kitchen"])
        XCTAssertEqual(rename.status, 0, rename.errorOutput)
        let apart = await eventually { try self.shownName(of: again) == "Kitchen (\(again.identity.deviceID.prefix(8)))" }
        XCTAssertTrue(apart, "\(String(describing: try? shownName(of: again)))")
        let offerApart = await eventually { try self.offerDevice(of: again) == "Kitchen (\(again.identity.deviceID.prefix(8)))" }
        XCTAssertTrue(offerApart, "its offer too: \(String(describing: try? offerDevice(of: again)))")
    }

    func testAPairedDeviceIsNeverShownByAnotherPairedDevicesName() async throws {
        try startBatondNamedEvil()
        let beta = try await pairedPeer(named: "beta")
        let mallory = try await pairedPeer(named: "mallory")
        for (index, hostile) in ["beta", "\u{0412}eta", "b\u{0435}ta", "beta\u{200B}", " beta"].enumerated() {
            if index > 0 { try await rename(mallory, to: "mallory") }
            try await rename(mallory, to: hostile)
            try await assertShown(mallory, claiming: hostile, apartFrom: "beta")
            XCTAssertEqual(try shownName(of: beta), "beta", "the device that had the name keeps it")
            XCTAssertEqual(try offerDevice(of: beta), "beta")
        }
        try await rename(mallory, to: "mallory")
        let again = try await relink(mallory, as: "Beta")
        let renamed = await eventually { try self.shownName(of: again) != "mallory" }
        XCTAssertTrue(renamed, "batond takes the name of the hello")
        try await assertShown(again, claiming: "Beta", apartFrom: "beta")
        XCTAssertEqual(try shownName(of: beta), "beta")

        // A device paired under a paired device's name is pinned apart from it.
        let twin = try await pairedPeer(named: "BETA")
        try await assertShown(twin, claiming: "BETA", apartFrom: "beta")
        XCTAssertEqual(try shownName(of: beta), "beta")
    }

    func testAPairedDeviceCannotFillTheLog() async throws {
        try startBatondNamedEvil(["--log-level", "info"])
        let mallory = try await pairedPeer(named: "mallory")
        _ = await pumpMainLoop(timeout: 0.5) { false }
        let log = session.root.appendingPathComponent("batond.log")
        let lines = { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n") }
        let before = lines().count

        let flood = 2000
        for index in 0..<flood {
            mallory.link.send(.renamed(name: "mallory \(index)"))
            mallory.link.send(.offers([PeerOffer(id: "flood\(index)", summary: ActivitySummary(activityType: "org.baton.test.note",
                                                                                              title: "Flood \(index)"),
                                                 appID: "org.baton.TestApp", teamID: "org.baton.test")]))
        }
        let handled = await eventually(timeout: 60) {
            try self.session.activities().contains { $0["id"] as? String == "flood\(flood - 1)" }
        }
        XCTAssertTrue(handled, "batond took every message")
        _ = await pumpMainLoop(timeout: 1) { false }
        let added = lines().dropFirst(before)
        XCTAssertLessThanOrEqual(added.count, 40, "30 lines, one saying the rest are dropped, and what else batond does: \(added.count) lines")
        XCTAssertTrue(added.contains { $0.contains("is sending too much; further lines from it are dropped for") },
                      "\(added.suffix(5))")
        XCTAssertEqual(try device(mallory.identity.deviceID)?["connected"] as? Bool, true,
                       "the device stays linked: only its lines are dropped")
    }
}
