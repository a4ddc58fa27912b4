import Foundation
import ServiceFixtures
import XCTest

/// The device's name, as the person sets it (`baton settings name`, `SetDeviceName`, the
/// Baton app): its paired devices show the new name at once, in their lists, offers and
/// notifications, and it is kept across a restart; bad names and a name fixed by `--name`
/// are refused, changing nothing.
final class DeviceNameTests: NotifiedDevicePairTestCase {
    override class var notifiedDevice: KeyPath<DevicePair, ServiceSession> { \.a }
    override class var renamable: Bool { true }

    /// The offers' notifications (not the pairing request's).
    private var shown: [[String: Any]] {
        notifications.shown.filter { ($0["summary"] as? String ?? "").hasPrefix("Continue") }
    }

    private func nameOfB(on session: ServiceSession) throws -> String? {
        try devices.device(devices.idB, on: session)?["name"] as? String
    }

    func testARenamedDeviceIsShownByItsNewNameAtOnceAndKeepsIt() throws {
        try devices.b.installTestAppEntry(id: "org.baton.TestApp")
        _ = try devices.b.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "draft"], name: "note")
        XCTAssertNotNil(devices.a.waitForActivity(titled: "Note: draft", timeout: 15))
        XCTAssertTrue(waitUntil(timeout: 10) { self.shown.count == 1 }, "A notifies B's offer")
        XCTAssertTrue((shown.first?["body"] as? String ?? "").contains("beta"), "\(shown)")

        let rename = try devices.b.baton(["settings", "name", "Study laptop"])
        XCTAssertEqual(rename.status, 0, rename.errorOutput)
        XCTAssertTrue(rename.output.contains("Name:           Study laptop"), rename.output)
        XCTAssertEqual(try DevicePair.status(of: devices.b)["device-name"] as? String, "Study laptop")
        XCTAssertTrue(waitUntil(timeout: 5) { try self.nameOfB(on: self.devices.a) == "Study laptop" },
                      "A lists B by its new name without a new link: \(String(describing: try? nameOfB(on: devices.a)))")
        XCTAssertTrue(waitUntil(timeout: 5) {
            try self.devices.a.activities().first { $0["title"] as? String == "Note: draft" }?["device"] as? String == "Study laptop"
        }, "the offer names the device by its new name")
        XCTAssertTrue(waitUntil(timeout: 5) { (self.shown.last?["body"] as? String ?? "").contains("Study laptop") },
                      "the notification names it too: \(shown)")
        let first = try XCTUnwrap(shown.first?["id"] as? Int)
        XCTAssertEqual(shown.last?["replaces"] as? Int, first, "replaced in place, not stacked: \(shown)")
        XCTAssertEqual(try devices.a.baton(["devices"]).output.contains("beta"), false, "the old name is gone")

        devices.batondB.stop()
        try devices.startB()
        XCTAssertEqual(try DevicePair.status(of: devices.b)["device-name"] as? String, "Study laptop",
                       "kept across a restart, over the name in batond.conf")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idB, on: self.devices.a)?["connected"] as? Bool == true
        })
        XCTAssertEqual(try nameOfB(on: devices.a), "Study laptop")
    }

    func testBadNamesAreRefusedAndChangeNothing() throws {
        for bad in ["", "two\nlines", "bidi\u{202E}txet", String(repeating: "n", count: 256)] {
            let result = try devices.b.baton(["settings", "name", bad])
            XCTAssertNotEqual(result.status, 0, "\(bad.debugDescription) refused")
            XCTAssertTrue(result.errorOutput.contains("name"), result.errorOutput)
        }
        XCTAssertEqual(try DevicePair.status(of: devices.b)["device-name"] as? String, "beta")
        XCTAssertEqual(try nameOfB(on: devices.a), "beta")
        let file = devices.b.root.appendingPathComponent("config/baton/settings.json")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "nothing was saved")
    }
}

/// A name given with `batond --name` is fixed while batond runs: renaming is refused and
/// says why.
final class FixedDeviceNameTests: XCTestCase {
    func testANameFixedByTheOptionIsNotChanged() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        let session = try ServiceSession()
        defer { session.tearDown() }
        try session.startBus()
        try session.startBatond(["--name", "kitchen"])
        let result = try session.baton(["settings", "name", "pantry"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errorOutput.contains("--name"), result.errorOutput)
        let settings = try session.baton(["settings", "--json"]).json as? [String: Any] ?? [:]
        XCTAssertEqual(settings["name"] as? String, "kitchen")
        XCTAssertEqual(settings["name-fixed"] as? Bool, true)
    }
}
