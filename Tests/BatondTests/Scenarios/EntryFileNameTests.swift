import Foundation
import ServiceFixtures
import XCTest

/// A desktop entry's file name is its app's id: the doctor flags one that is not, and a launch
/// to continue an activity through it fails at once, naming the rule, instead of waiting 20 s
/// for a registration of an id no app has.
final class EntryFileNameTests: ServiceTestCase {
    private func note(_ text: String) throws -> String {
        try activityFile(["type": "org.baton.test.note", "title": "Note: \(text)", "userInfo": ["text": text],
                          "teamID": "org.baton.test"])
    }

    private func installEntry(named id: String) throws {
        try session.installDesktopEntry(
            id: id, exec: "\(ServiceSession.product("BatonTestApp").path) app --text launched",
            teamID: "org.baton.test", activityTypes: ["org.baton.test.note"])
    }

    func testAnEntryNamedWithoutAnAppIDIsFlaggedAndNotStarted() throws {
        try installEntry(named: "todo")
        let doctor = try XCTUnwrap(session.baton(["doctor", "--json"]).json as? [[String: Any]])
        let check = try XCTUnwrap(doctor.first { $0["check"] as? String == "entry todo.desktop" }, "\(doctor)")
        XCTAssertEqual(check["ok"] as? Bool, false, "\(check)")
        XCTAssertTrue((check["detail"] as? String ?? "").contains("a desktop entry's file name must be its app's id"), "\(check)")
        XCTAssertFalse((check["fix"] as? String ?? "").isEmpty)

        let started = Date()
        let result = try session.baton(["continue", "--file", note("to todo")])
        XCTAssertEqual(result.status, 1, result.errorOutput)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "failed at once")
        XCTAssertTrue(result.errorOutput.contains("a desktop entry's file name must be its app's id"), result.errorOutput)
    }

    func testAnAppThatRegistersUnderAnotherIDFailsTheLaunchAtOnce() throws {
        try requireDisplay()
        try installEntry(named: "org.baton.todo")
        let started = Date()
        let result = try session.baton(["continue", "--file", note("to the misnamed")])
        XCTAssertEqual(result.status, 1, result.errorOutput)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "failed once the app registered, not after 20 s")
        XCTAssertTrue(result.errorOutput.contains("registered as org.baton.TestApp")
                      && result.errorOutput.contains("should be org.baton.TestApp.desktop"), result.errorOutput)

        // While it runs, the doctor says which entry is its own, misnamed.
        let doctor = try XCTUnwrap(session.baton(["doctor", "--json"]).json as? [[String: Any]])
        let check = try XCTUnwrap(doctor.first { $0["check"] as? String == "app org.baton.TestApp" }, "\(doctor)")
        XCTAssertEqual(check["ok"] as? Bool, false, "\(check)")
        XCTAssertTrue((check["fix"] as? String ?? "").contains("org.baton.todo.desktop is its entry, rename it to org.baton.TestApp.desktop"), "\(check)")
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        if let pid = apps.first(where: { $0["running"] as? Bool == true })?["pid"] as? Int { kill(Int32(pid), SIGTERM) }
    }
}
