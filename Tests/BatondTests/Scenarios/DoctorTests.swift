import Foundation
import ServiceFixtures
import XCTest

/// `baton doctor`: each check fails when its cause is introduced, says how to fix it, and
/// passes once the cause is gone; the command exits 1 while one fails.
final class DoctorTests: ServiceTestCase {
    /// `baton doctor --json`: its checks by name, and its exit status.
    private func doctor() throws -> (checks: [String: [String: Any]], status: Int32) {
        let result = try session.baton(["doctor", "--json"])
        let records = result.json as? [[String: Any]] ?? []
        XCTAssertFalse(records.isEmpty, "doctor printed no checks: \(result.output) \(result.errorOutput)")
        return (Dictionary(records.map { ($0["check"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first }),
                result.status)
    }

    private func check(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(try doctor().checks[name], "no check \(name)")
    }

    private func assertFails(_ name: String, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let found = try check(name)
        XCTAssertEqual(found["ok"] as? Bool, false, "\(name) should fail: \(found)", file: file, line: line)
        XCTAssertTrue("\(found["detail"] ?? "") \(found["fix"] ?? "")".contains(text), "\(name): \(found)", file: file, line: line)
        XCTAssertFalse((found["fix"] as? String ?? "").isEmpty, "a failed check says how to fix it", file: file, line: line)
    }

    private func assertPasses(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let found = try check(name)
        XCTAssertEqual(found["ok"] as? Bool, true, "\(name) should pass: \(found)", file: file, line: line)
    }

    func testTheChecksOfHowBatondStarts() throws {
        // No autostart entry and no enabled unit in this session's config.
        try assertFails("starts with the session", mentioning: "install-service.sh")
        let autostart = session.root.appendingPathComponent("config/autostart")
        try FileManager.default.createDirectory(at: autostart, withIntermediateDirectories: true)
        let entry = autostart.appendingPathComponent("org.baton.Daemon.desktop")
        try "[Desktop Entry]\nType=Application\nName=Baton\nExec=batond\n".write(to: entry, atomically: true, encoding: .utf8)
        try assertPasses("starts with the session")
        try "[Desktop Entry]\nType=Application\nName=Baton\nExec=batond\nHidden=true\n".write(to: entry, atomically: true, encoding: .utf8)
        try assertFails("starts with the session", mentioning: "systemctl --user enable batond")

        let serviceFile = session.servicesFolder.appendingPathComponent("org.baton.Daemon.service")
        try "[D-BUS Service]\nName=org.baton.Daemon\nExec=/nonexistent/batond\n".write(to: serviceFile, atomically: true, encoding: .utf8)
        try assertFails("D-Bus service file", mentioning: "/nonexistent/batond, which is not installed")
        try "[D-BUS Service]\nName=org.baton.Daemon\nExec=\(ServiceSession.product("batond").path)\n"
            .write(to: serviceFile, atomically: true, encoding: .utf8)
        try assertPasses("D-Bus service file")
        try assertPasses("service")
        try assertPasses("discovery")   // off with --no-discovery, as the tests run it: a choice, not a fault

        // The tests listen on loopback, which other devices cannot reach.
        try assertFails("listening", mentioning: "only this machine can reach")
        batond.stop()
        batond = try session.startBatond(["--listen", "0.0.0.0:0"])
        try assertPasses("listening")
    }

    func testTheChecksOfNotificationsSettingsEntriesAndApps() throws {
        try assertFails("notifications", mentioning: "never shown")
        let server = try session.start(ServiceSession.product("BatonTestApp"),
                                       ["notification-server", "--log", session.root.appendingPathComponent("n.jsonl").path],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
        try assertPasses("notifications")

        XCTAssertEqual(try session.baton(["settings", "handoff", "off"]).status, 0)
        try assertFails("settings", mentioning: "baton settings handoff on")
        XCTAssertEqual(try session.baton(["settings", "handoff", "on"]).status, 0)
        try assertPasses("settings")

        try session.installDesktopEntry(id: "org.baton.Broken", exec: "/nonexistent/broken", teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"])
        try assertFails("entry org.baton.Broken.desktop", mentioning: "desktops cannot use it")
        try session.installDesktopEntry(id: "org.baton.Broken", exec: ServiceSession.product("BatonTestApp").path,
                                        teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        try assertPasses("entry org.baton.Broken.desktop")

        try assertFails("paired devices", mentioning: "baton pair DEVICE")

        // An app running without a desktop entry registers unverified.
        let app = try startNoteApp("lonely", text: "lonely", extra: ["--app-id", "org.baton.Lonely"])
        try assertFails("app org.baton.Lonely", mentioning: "install org.baton.Lonely.desktop")
        XCTAssertEqual(try doctor().status, 1, "a failing check: exit status 1")
        app.child.stop()
        try session.installTestAppEntry(id: "org.baton.Lonely")
        try startNoteApp("installed", text: "installed", extra: ["--app-id", "org.baton.Lonely"])
        try assertPasses("app org.baton.Lonely")
    }

    /// A document MIME type the desktop does not know (a custom extension without its
    /// shared-mime-info definition) fails the entry's check, saying how to install one.
    func testAnEntrysUnknownDocumentMIMETypeFails() throws {
        let program = ServiceSession.product("BatonTestApp").path
        try session.installDesktopEntry(id: "org.baton.Todo", exec: program, teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"],
                                        extraLines: ["X-Baton-DocumentTypes=application/x-baton-test-todo:org.baton.test.note;"])
        try assertFails("entry org.baton.Todo.desktop", mentioning: "does not know: application/x-baton-test-todo")
        try assertFails("entry org.baton.Todo.desktop", mentioning: "update-mime-database")
        try session.installDesktopEntry(id: "org.baton.Todo", exec: program, teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"],
                                        extraLines: ["X-Baton-DocumentTypes=text/plain:org.baton.test.note;"])
        try assertPasses("entry org.baton.Todo.desktop")
    }

    /// No Syncthing passes (documents come over the link); a GUI batond will not use, or a
    /// Syncthing that does not answer, fails and says what to do.
    func testTheSyncthingCheck() throws {
        XCTAssertTrue("\(try check("syncthing")["detail"] ?? "")".contains("not set up here"))
        try assertPasses("syncthing")
        let home = session.root.appendingPathComponent("config/syncthing")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        func configure(_ gui: String) throws {
            try "<configuration><gui enabled=\"true\" tls=\"false\">\(gui)</gui></configuration>"
                .write(to: home.appendingPathComponent("config.xml"), atomically: true, encoding: .utf8)
        }
        try configure("<address>0.0.0.0:8384</address><apikey>k</apikey>")
        try assertFails("syncthing", mentioning: "not plain HTTP on a loopback address")
        // A loopback port where nothing listens.
        try configure("<address>127.0.0.1:9</address><apikey>k</apikey>")
        try assertFails("syncthing", mentioning: "does not answer")
    }

    func testWithBatondStoppedTheDoctorSaysSoAndDoesNotStartIt() throws {
        let serviceFile = session.servicesFolder.appendingPathComponent("org.baton.Daemon.service")
        try "[D-BUS Service]\nName=org.baton.Daemon\nExec=\(ServiceSession.product("batond").path)\n"
            .write(to: serviceFile, atomically: true, encoding: .utf8)
        batond.stop()
        let result = try session.baton(["doctor"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.output.contains("✘ service: batond is not running"), result.output)
        XCTAssertTrue(result.output.contains("fix: start it: systemctl --user start batond"), result.output)
        let owner = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"),
                                    ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                     "--method", "org.freedesktop.DBus.NameHasOwner", "org.baton.Daemon"])
        XCTAssertEqual(owner.output.trimmingCharacters(in: .whitespacesAndNewlines), "(false,)", "the doctor did not start batond")
    }
}

/// The discovery check where avahi-daemon cannot be reached.
final class DoctorDiscoveryTests: XCTestCase {
    func testDiscoveryWithoutAvahiFailsAndSaysWhatToInstall() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        let session = try ServiceSession()
        defer { session.tearDown() }
        session.environmentOverrides["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(session.root.path)/no-system-bus"
        try session.startBus()
        try session.startBatond(discovery: true)
        let records = try session.baton(["doctor", "--json"]).json as? [[String: Any]] ?? []
        let discovery = try XCTUnwrap(records.first { $0["check"] as? String == "discovery" })
        XCTAssertEqual(discovery["ok"] as? Bool, false, "\(discovery)")
        XCTAssertTrue((discovery["detail"] as? String ?? "").contains("no avahi-daemon"), "\(discovery)")
        XCTAssertTrue((discovery["fix"] as? String ?? "").contains("sudo apt install avahi-daemon"), "\(discovery)")
    }
}

/// The check of each paired device, on two devices.
final class DoctorPairedDeviceTests: XCTestCase {
    func testAPairedDeviceThatIsNotLinkedFailsUntilItIsBack() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        let devices = try DevicePair()
        defer { devices.tearDown() }
        try devices.pair()
        func betaOnA() throws -> [String: Any]? {
            let records = try devices.a.baton(["doctor", "--json"]).json as? [[String: Any]] ?? []
            return records.first { $0["check"] as? String == "device beta" }
        }
        XCTAssertEqual(try betaOnA()?["ok"] as? Bool, true)
        devices.batondB.stop()
        XCTAssertTrue(waitUntil(timeout: 15) { try betaOnA()?["ok"] as? Bool == false }, "\(String(describing: try? betaOnA()))")
        XCTAssertTrue((try betaOnA()?["fix"] as? String ?? "").contains("start batond there"))
        try devices.startB()
        XCTAssertTrue(waitUntil(timeout: 15) { try betaOnA()?["ok"] as? Bool == true })
    }
}

/// The reach-back check: a paired device this device dialed is asked to dial it back. B
/// listens on IPv6's loopback (`::1`) alone while its links to A go over IPv4 from 127.0.0.1
/// (a device dials from the address it listens on only within one family), so A, which
/// learns B's address from the link, cannot dial it: B's doctor says so, A's (whose link B
/// dialed) does not.
final class DoctorReachBackTests: XCTestCase {
    func testADeviceThatCannotBeDialedBackFailsUntilItListensWhereItCanBeReached() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        let devices = try DevicePair(argumentsB: ["--listen", "[::1]:0"])
        defer { devices.tearDown() }
        try devices.pair()
        func check(_ name: String, on session: ServiceSession) throws -> [String: Any]? {
            let records = try session.baton(["doctor", "--json"]).json as? [[String: Any]] ?? []
            return records.first { $0["check"] as? String == "device \(name)" }
        }
        let alphaOnB = try XCTUnwrap(try check("alpha", on: devices.b))
        XCTAssertEqual(alphaOnB["ok"] as? Bool, false, "\(alphaOnB)")
        XCTAssertTrue((alphaOnB["detail"] as? String ?? "").contains("cannot dial this device"), "\(alphaOnB)")
        XCTAssertTrue((alphaOnB["detail"] as? String ?? "").contains("127.0.0.1:"), "says where it dialed: \(alphaOnB)")
        XCTAssertTrue((alphaOnB["fix"] as? String ?? "").contains("--listen"), "\(alphaOnB)")
        let betaOnA = try XCTUnwrap(try check("beta", on: devices.a))
        XCTAssertEqual(betaOnA["ok"] as? Bool, true, "B dialed A for this link: \(betaOnA)")

        devices.batondB.stop()
        devices.argumentsB = ["--listen", "0.0.0.0:0"]
        try devices.startB()
        XCTAssertTrue(waitUntil(timeout: 10) {
            try devices.device(devices.idA, on: devices.b)?["connected"] as? Bool == true
        })
        let fixed = try XCTUnwrap(try check("alpha", on: devices.b))
        XCTAssertEqual(fixed["ok"] as? Bool, true, "\(fixed)")
        XCTAssertTrue((fixed["detail"] as? String ?? "").contains("dialed this device back"), "\(fixed)")
    }
}
