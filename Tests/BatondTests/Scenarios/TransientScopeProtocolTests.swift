import Foundation
import ServiceFixtures
import XCTest

/// batond's side of the systemd protocol for apps it starts, against a stand-in for the
/// systemd user manager (`BatonTestApp fake-systemd`) on the test's private bus: which call
/// batond makes and with what. No real manager runs here (PID 1 is not systemd), so whether
/// systemd then moves the process into the scope is not tested.
final class TransientScopeProtocolTests: ServiceTestCase {
    /// An app id with a dash, which the unit name must escape.
    private let appID = "org.baton.Scope-Test"

    private func startFakeSystemd(failing: Bool = false) throws -> URL {
        let log = session.root.appendingPathComponent("systemd.jsonl")
        let fake = try session.start(ServiceSession.product("BatonTestApp"),
                                     ["fake-systemd", "--log", log.path] + (failing ? ["--fail"] : []), name: "systemd")
        XCTAssertTrue(waitUntil { fake.log.contains("fake systemd ready") }, fake.log)
        return log
    }

    /// The `StartTransientUnit` calls the fake recorded.
    private func calls(in log: URL) -> [[String: Any]] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private func installApp(_ name: String) throws -> NoteAppProcess {
        let app = NoteAppProcess(root: session.root, name: name)
        try session.installDesktopEntry(
            id: appID,
            exec: "env BATON_TRACE=\(app.traceURL.path) \(ServiceSession.product("BatonTestApp").path) app --app-id \(appID) --text placeholder",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        return app
    }

    private func continueNote(_ text: String) throws -> CommandResult {
        try session.baton(["continue", "--file", activityFile(["type": "org.baton.test.note", "title": "Note: \(text)",
                                                               "userInfo": ["text": text], "teamID": "org.baton.test"])])
    }

    private func registeredPID() throws -> Int32? {
        let apps = try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
        return apps.first { $0["app-id"] as? String == appID && $0["running"] as? Bool == true }
            .flatMap { $0["pid"] as? Int }.map(Int32.init)
    }

    func testWithAManagerOnTheBusTheStartedAppIsPutIntoATransientScope() throws {
        try requireDisplay()
        let log = try startFakeSystemd()
        let app = try installApp("scoped")
        let result = try continueNote("scoped")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertNotNil(app.waitForEvent("restored"))
        let pid = try XCTUnwrap(registeredPID())
        defer { kill(pid, SIGTERM) }
        XCTAssertTrue(waitUntil { calls(in: log).count == 1 }, "one StartTransientUnit call: \(calls(in: log))")
        let call = try XCTUnwrap(calls(in: log).first)

        XCTAssertEqual(call["signature"] as? String, "(ssa(sv)a(sa(sv)))")
        XCTAssertEqual(call["mode"] as? String, "fail")
        XCTAssertEqual(call["aux"] as? Int, 0, "no auxiliary units")
        let properties = try XCTUnwrap(call["properties"] as? [String: Any])
        XCTAssertEqual((properties["PIDs"] as? [Any])?.compactMap { ($0 as? NSNumber)?.int32Value }, [pid],
                       "the scope gets the app's own process")
        XCTAssertEqual(call["alive"] as? [Bool], [true], "the process ran when the manager was asked")
        XCTAssertEqual(properties["CollectMode"] as? String, "inactive-or-failed")
        XCTAssertFalse((properties["Description"] as? String ?? "").isEmpty, "\(properties)")
        XCTAssertEqual(Set(properties.keys), ["PIDs", "Description", "CollectMode"])

        let name = try XCTUnwrap(call["name"] as? String)
        try assertValidScopeName(name, of: appID)
        XCTAssertTrue(name.hasPrefix("app-org.baton.Scope\\x2dTest-"), name)
        XCTAssertTrue(waitUntil { batond.log.contains("moved \(appID) (process \(pid)) into \(name)") }, batond.log)
        XCTAssertTrue(batond.log.contains("starting \(appID) through a transient systemd scope"), batond.log)
        XCTAssertEqual(getsid(pid), pid, "spawned detached before the scope was asked for")
        XCTAssertNotEqual(getsid(pid), getsid(batond.pid))
        XCTAssertEqual(ProcessState.environment(of: pid)["BATON_LAUNCH_REASON"], "continue", "the launch reason on this route too")
        XCTAssertEqual(ProcessState.environment(of: pid)["BATON_CONTINUE_TYPE"], "org.baton.test.note")

        // A second launch gets a scope of its own.
        kill(pid, SIGTERM)
        XCTAssertTrue(waitUntil { try registeredPID() == nil })
        XCTAssertEqual(try continueNote("again").status, 0)
        XCTAssertTrue(waitUntil { calls(in: log).count == 2 }, "\(calls(in: log))")
        if let again = try registeredPID() { kill(again, SIGTERM) }
        let names = calls(in: log).compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(names).count, 2, "each scope has its own name: \(names)")
    }

    func testAManagerThatRefusesLeavesTheAppRunning() throws {
        try requireDisplay()
        let log = try startFakeSystemd(failing: true)
        let app = try installApp("refused")
        let result = try continueNote("refused scope")
        XCTAssertEqual(result.status, 0, "the continuation does not depend on the scope: \(result.errorOutput)")
        let restored = try XCTUnwrap(app.waitForEvent("restored"))
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "refused scope")
        let pid = try XCTUnwrap(registeredPID())
        defer { kill(pid, SIGTERM) }
        XCTAssertEqual(calls(in: log).count, 1)
        XCTAssertTrue(waitUntil { batond.log.contains("could not move \(appID) (process \(pid)) into a transient scope") },
                      batond.log)
        XCTAssertTrue(batond.log.contains("refused by the fake manager"), batond.log)
        XCTAssertTrue(ProcessState.isAlive(pid))
        XCTAssertEqual(getsid(pid), pid, "still detached from batond")
        try assertServiceAlive()
    }

    func testADBusActivatableEntryIsActivatedEvenWithAManagerOnTheBus() throws {
        try requireDisplay()
        let log = try startFakeSystemd()
        let trace = session.root.appendingPathComponent("activated.trace.jsonl")
        try session.installDesktopEntry(id: "org.baton.TestApp", exec: "/bin/false", teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"], dbusActivatable: true)
        try """
            [D-BUS Service]
            Name=org.baton.TestApp
            Exec=/usr/bin/env BATON_TRACE=\(trace.path) \(ServiceSession.product("BatonTestApp").path) app --unique --text activated
            """.write(to: session.servicesFolder.appendingPathComponent("org.baton.TestApp.service"), atomically: true,
                      encoding: .utf8)
        let result = try continueNote("activated")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(NoteAppProcess(root: session.root, name: "activated").waitForEvent("restored"))
        if let pid = restored["pid"] as? Int { kill(Int32(pid), SIGTERM) }
        XCTAssertTrue(batond.log.contains("starting org.baton.TestApp through D-Bus activation"), batond.log)
        XCTAssertEqual(calls(in: log).count, 0, "the bus started the app: batond asks for no scope")
    }

    /// `name` is a scope name systemd accepts for `appID`, by its desktop conventions:
    /// `app-<escaped id>-<random>.scope`, only characters valid in unit names, at most 255
    /// bytes, and the id read back by `systemd-escape --unescape` where that tool is installed.
    private func assertValidScopeName(_ name: String, of appID: String,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertLessThanOrEqual(name.utf8.count, 255, file: file, line: line)
        XCTAssertTrue(name.hasPrefix("app-") && name.hasSuffix(".scope"), name, file: file, line: line)
        let valid = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\")
        XCTAssertTrue(name.allSatisfy { valid.contains($0) }, "only unit-name characters: \(name)", file: file, line: line)
        let parts = name.dropLast(".scope".count).split(separator: "-", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3, "app, the escaped id (no dash) and the random part: \(name)", file: file, line: line)
        guard parts.count == 3 else { return }
        XCTAssertFalse(parts[2].isEmpty, file: file, line: line)
        let tool = URL(fileURLWithPath: "/usr/bin/systemd-escape")
        if FileManager.default.isExecutableFile(atPath: tool.path) {
            let unescaped = try session.run(tool, ["--unescape", String(parts[1])])
            XCTAssertEqual(unescaped.output.trimmingCharacters(in: .newlines), appID, file: file, line: line)
        }
    }
}
