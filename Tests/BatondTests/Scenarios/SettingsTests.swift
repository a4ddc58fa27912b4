import Foundation
import ServiceFixtures
import XCTest

/// Settings a person controls (`baton settings`, over D-Bus with `SettingsChanged`): Handoff
/// off, quiet notifications, blocked devices and apps, each taking effect at once and kept
/// across a restart; bad values refused, changing nothing.
final class SettingsTests: NotifiedDevicePairTestCase {
    @discardableResult
    private func startNote(on session: ServiceSession, appID: String = "org.baton.TestApp", text: String) throws -> ChildProcess {
        try session.installTestAppEntry(id: appID)
        let child = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--app-id", appID, "--text", text],
                                      name: "note-\(text)")
        guard session.waitForActivity(titled: "Note: \(text)") != nil else { throw FixtureError("\(text) never published") }
        return child
    }

    private func offers(on session: ServiceSession, from device: String) throws -> [String] {
        try session.activities().filter { $0["device"] as? String == device }.compactMap { $0["title"] as? String }
    }

    private func settings(on session: ServiceSession) throws -> [String: Any] {
        try session.baton(["settings", "--json"]).json as? [String: Any] ?? [:]
    }

    private func set(_ words: [String], on session: ServiceSession) throws {
        let result = try session.baton(["settings"] + words)
        XCTAssertEqual(result.status, 0, result.errorOutput)
    }

    private var records: [[String: Any]] { notifications.records }

    func testQuietAndHandoffOffTakeEffectAtOnceAndSurviveARestart() throws {
        let monitor = try devices.b.start(URL(fileURLWithPath: "/usr/bin/dbus-monitor"),
                                          ["--address", devices.b.busAddress,
                                           "type='signal',interface='org.baton.Daemon1',member='SettingsChanged'"],
                                          name: "monitor")
        XCTAssertTrue(waitUntil { monitor.log.contains("NameAcquired") })
        let note = try startNote(on: devices.a, text: "shared")
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha") == ["Note: shared"] })
        XCTAssertTrue(waitUntil { self.records.contains { $0["summary"] != nil } }, "notified")
        let id = try XCTUnwrap(records.first { $0["summary"] != nil }?["id"] as? Int)

        try set(["notifications", "quiet"], on: devices.b)
        XCTAssertTrue(waitUntil { self.records.contains { $0["closed"] as? Int == id } }, "quiet withdraws it: \(records)")
        XCTAssertTrue(waitUntil { monitor.log.contains("SettingsChanged") }, "a change signal: \(monitor.log)")
        kill(note.pid, SIGUSR1)   // A's note changes: listed on B, not notified
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha") == ["Note: shared (active)"] })
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(records.filter { $0["summary"] != nil }.count, 1, "quiet: listed only")

        try set(["handoff", "off"], on: devices.b)
        XCTAssertEqual(try offers(on: devices.b, from: "alpha"), [], "off: other devices' offers are not listed")
        let listedOnA = try XCTUnwrap(devices.a.activities().first?["id"] as? String)
        XCTAssertEqual(try devices.b.baton(["continue", listedOnA]).status, 1, "nor continued")

        devices.batondB.stop()
        try devices.startB()
        let kept = try settings(on: devices.b)
        XCTAssertEqual(kept["handoff"] as? Bool, false, "kept across a restart: \(kept)")
        XCTAssertEqual(kept["notifications"] as? String, "quiet")
        let file = devices.b.root.appendingPathComponent("config/baton/settings.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)

        try set(["handoff", "on"], on: devices.b)
        try set(["notifications", "on"], on: devices.b)
        XCTAssertTrue(waitUntil(timeout: 15) { try self.offers(on: self.devices.b, from: "alpha") == ["Note: shared (active)"] })
        XCTAssertTrue(waitUntil { self.records.filter { $0["summary"] != nil }.count == 2 }, "notified again: \(records)")
    }

    func testABlockedDeviceIsOfferedNothingAndItsOffersAreHidden() throws {
        try startNote(on: devices.a, text: "from alpha")
        try startNote(on: devices.b, text: "from beta")
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha") == ["Note: from alpha"] })
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.a, from: "beta") == ["Note: from beta"] })

        try set(["device", "alpha", "block"], on: devices.b)
        XCTAssertEqual(try offers(on: devices.b, from: "alpha"), [], "alpha's offers are hidden on B")
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.a, from: "beta").isEmpty }, "B offers alpha nothing")
        XCTAssertEqual(try settings(on: devices.b)["blocked-devices"] as? [String], [devices.idA])

        try set(["device", "alpha", "allow"], on: devices.b)
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha") == ["Note: from alpha"] })
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.a, from: "beta") == ["Note: from beta"] })
    }

    func testABlockedAppIsNeverOffered() throws {
        try startNote(on: devices.a, appID: "org.baton.Private", text: "private")
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha") == ["Note: private"] })
        try set(["app", "org.baton.Private", "block"], on: devices.a)
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha").isEmpty }, "no longer offered")
        XCTAssertTrue(try devices.a.activities().contains { $0["title"] as? String == "Note: private" }, "still listed on A")
        try set(["app", "org.baton.Private", "allow"], on: devices.a)
        XCTAssertTrue(waitUntil { try self.offers(on: self.devices.b, from: "alpha") == ["Note: private"] })
    }

    func testRecentDocumentsRoundTripAndAnOlderFileReadsAsOn() throws {
        XCTAssertEqual(try settings(on: devices.b)["recent-documents"] as? Bool, true, "on by default")
        try set(["recent-documents", "off"], on: devices.b)
        XCTAssertEqual(try settings(on: devices.b)["recent-documents"] as? Bool, false)
        XCTAssertTrue(try devices.b.baton(["settings"]).output.contains("Recent documents: off"))
        devices.batondB.stop()
        try devices.startB()
        XCTAssertEqual(try settings(on: devices.b)["recent-documents"] as? Bool, false, "kept across a restart")
        try set(["recent-documents", "on"], on: devices.b)
        XCTAssertEqual(try settings(on: devices.b)["recent-documents"] as? Bool, true)

        // A file written before the setting existed: the setting reads as on, the rest as written.
        devices.batondB.stop()
        let file = devices.b.root.appendingPathComponent("config/baton/settings.json")
        try #"{"handoff": true, "notifications": "quiet", "blocked-devices": [], "blocked-apps": ["org.baton.Old"]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        try devices.startB()
        let read = try settings(on: devices.b)
        XCTAssertEqual(read["recent-documents"] as? Bool, true, "\(read)")
        XCTAssertEqual(read["notifications"] as? String, "quiet", "the older file was read: \(read)")
        XCTAssertEqual(read["blocked-apps"] as? [String], ["org.baton.Old"])
    }

    func testBadValuesAreRefusedAndChangeNothing() throws {
        let before = try settings(on: devices.b)
        for (words, message) in [(["notifications", "loud"], "notifications are \"on\" or \"quiet\", not \"loud\""),
                                 (["handoff", "maybe"], "handoff is on or off"),
                                 (["recent-documents", "maybe"], "recent-documents is on or off, not \"maybe\""),
                                 (["recent-documents"], "takes one value"),
                                 (["device", "nosuchdevice", "block"], "nosuchdevice"),
                                 (["app", "not an id", "block"], "invalid application id"),
                                 // A bidi override would turn the name around where it is printed.
                                 (["app", "gedit\u{202E}txt", "block"], "invalid application id"),
                                 (["app", "ged\u{200B}it", "block"], "invalid application id"),
                                 (["volume", "11"], "unknown setting")] {
            let result = try devices.b.baton(["settings"] + words)
            XCTAssertNotEqual(result.status, 0, "\(words)")
            XCTAssertTrue(result.errorOutput.contains(message), "\(words): \(result.errorOutput)")
        }
        XCTAssertEqual(NSDictionary(dictionary: try settings(on: devices.b)), NSDictionary(dictionary: before))
    }
}
