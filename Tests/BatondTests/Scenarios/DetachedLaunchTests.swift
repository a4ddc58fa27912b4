import Foundation
import ServiceFixtures
import XCTest

/// An app batond starts does not live and die with batond: it runs in a session and process
/// group of its own, outlives batond killed mid-continuation, registers again by itself when
/// batond returns, and is reaped when it exits. (No systemd user manager here: the detached
/// route. ``TransientScopeProtocolTests`` covers the scope route against a stand-in manager.)
final class DetachedLaunchTests: ServiceTestCase {
    private let appID = "org.baton.Detached"

    /// Installs the test app as ``appID``, tracing to `<name>.trace.jsonl`, with `extra` options.
    private func installApp(_ name: String, extra: String = "") throws -> NoteAppProcess {
        let app = NoteAppProcess(root: session.root, name: name)
        try session.installDesktopEntry(
            id: appID,
            exec: "env BATON_TRACE=\(app.traceURL.path) \(ServiceSession.product("BatonTestApp").path) app --app-id \(appID) --text placeholder \(extra)",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
        return app
    }

    private func note(_ text: String) throws -> String {
        try activityFile(["type": "org.baton.test.note", "title": "Note: \(text)", "userInfo": ["text": text],
                          "teamID": "org.baton.test"])
    }

    /// The pid of the running app registered as ``appID``, if any.
    private func registeredPID() throws -> Int32? {
        let apps = try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
        return apps.first { $0["app-id"] as? String == appID && $0["running"] as? Bool == true }
            .flatMap { $0["pid"] as? Int }.map(Int32.init)
    }

    func testAnAppStartedMidContinuationOutlivesAKilledServiceAndRegistersAgainByItself() throws {
        try requireDisplay()
        let app = try installApp("slow", extra: "--restore-delay 3")
        let continuing = try session.start(ServiceSession.product("baton"), ["continue", "--file", note("in flight")],
                                           name: "continue")
        XCTAssertNotNil(app.waitForEvent("continued"), "the app got the activity: \(app.eventNames)")
        XCTAssertFalse(app.eventNames.contains("restored"), "killed before the restore, which takes 3 s")
        let pid = try XCTUnwrap(registeredPID(), "the started app registered")
        defer { kill(pid, SIGTERM) }
        let batondPID = batond.pid
        XCTAssertEqual(getsid(pid), pid, "the app leads a session of its own")
        XCTAssertNotEqual(getsid(pid), getsid(batondPID), "the app is not in batond's session")
        XCTAssertNotEqual(getpgid(pid), getpgid(batondPID), "the app is not in batond's process group")

        // batond dies without a word, and its whole process group with it where it leads one,
        // as a stopped service's processes would; never the test's own group.
        if getpgid(batondPID) == batondPID && getpgrp() != batondPID {
            kill(-batondPID, SIGKILL)
        } else {
            kill(batondPID, SIGKILL)
        }
        XCTAssertNotNil(batond.waitForExit(timeout: 5), "batond was killed")
        XCTAssertNotEqual(continuing.waitForExit(timeout: 10), 0, "the continuing call lost its service")

        let restored = try XCTUnwrap(app.waitForEvent("restored"), "the app restored on its own: \(app.eventNames)")
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "in flight")
        XCTAssertTrue(ProcessState.isAlive(pid), "the app outlived batond: \(ProcessState.state(of: pid) ?? "gone")")

        batond = try session.startBatond(name: "batond-again")
        XCTAssertTrue(waitUntil(timeout: 15) {
            try activities().contains { $0["title"] as? String == "Note: in flight" && $0["app-id"] as? String == appID }
        }, "the app registered again by itself and its activity is listed: \((try? activities()) ?? [])")
        XCTAssertEqual(try registeredPID(), pid, "the same process, not a new one")
        XCTAssertTrue(ProcessState.isAlive(pid))
    }

    func testWithoutASystemdManagerTheAppRunsDetachedAndIsReapedWhenItExits() throws {
        try requireDisplay()
        let monitor = try session.start(URL(fileURLWithPath: "/usr/bin/dbus-monitor"),
                                        ["--address", session.busAddress, "type='method_call',member='StartTransientUnit'",
                                         "type='method_call',member='NameHasOwner'"],
                                        name: "monitor")
        defer { monitor.stop() }
        XCTAssertTrue(waitUntil(timeout: 5) { monitor.log.contains("NameAcquired") }, monitor.log)
        let app = try installApp("detached")
        let result = try session.baton(["continue", "--file", note("detached")])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertNotNil(app.waitForEvent("restored"))
        let pid = try XCTUnwrap(registeredPID())
        defer { kill(pid, SIGTERM) }

        XCTAssertEqual(getsid(pid), pid, "the app leads a session of its own")
        XCTAssertNotEqual(getsid(pid), getsid(batond.pid))
        XCTAssertNotEqual(getpgid(pid), getpgid(batond.pid))
        XCTAssertEqual(ProcessState.parent(of: pid), batond.pid, "one fork: batond knows the app's own pid and reaps it")
        XCTAssertEqual(ProcessState.environment(of: pid)["BATON_LAUNCH_REASON"], "continue")
        XCTAssertEqual(ProcessState.environment(of: pid)["BATON_CONTINUE_TYPE"], "org.baton.test.note")
        XCTAssertTrue(batond.log.contains("starting \(appID) through a detached process"), batond.log)
        XCTAssertTrue(batond.log.contains("started \(appID) as process \(pid) in its own session"), batond.log)
        XCTAssertTrue(monitor.log.contains("org.freedesktop.systemd1"), "batond asked whether a manager is there: \(monitor.log)")
        XCTAssertFalse(monitor.log.contains("member=StartTransientUnit"), "no scope was asked for: \(monitor.log)")

        kill(pid, SIGTERM)
        XCTAssertTrue(waitUntil(timeout: 10) { ProcessState.state(of: pid) == nil },
                      "batond reaped the app: no zombie stays (\(ProcessState.state(of: pid) ?? "gone"))")
        try assertServiceAlive()
    }
}

/// A process's state and parent, from `/proc/PID/stat`.
enum ProcessState {
    /// The state letter (`R`, `S`, `Z`…), or `nil` when there is no such process.
    static func state(of pid: Int32) -> String? { fields(of: pid)?.first }

    static func parent(of pid: Int32) -> Int32? { fields(of: pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil } }

    /// The process's environment at its start, from `/proc/PID/environ`.
    static func environment(of pid: Int32) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return [:] }
        var result: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return result
    }

    /// Whether the process runs: it exists and is not a zombie.
    static func isAlive(_ pid: Int32) -> Bool { state(of: pid).map { $0 != "Z" && $0 != "X" } ?? false }

    /// The fields after the command name's closing parenthesis.
    private static func fields(of pid: Int32) -> [String]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").map(String.init)
    }
}
