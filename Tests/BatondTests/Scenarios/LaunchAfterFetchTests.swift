import Foundation
import ServiceFixtures
import XCTest

/// When the app to continue an activity must be started, batond fetches and checks the
/// payload first, and starts the app only when that succeeded: an activity that cannot be
/// continued never leaves a blank instance of the claimant behind.
final class LaunchAfterFetchTests: ServiceTestCase {
    private let installedID = "org.baton.Installed"

    /// Installs a claimant of the note type (not running) whose `Exec` is a script that
    /// writes its pid to `marker`, then runs the test app as ``installedID``.
    private func installClaimant(_ name: String) throws -> (marker: URL, app: NoteAppProcess) {
        let marker = session.root.appendingPathComponent("\(name).started")
        let app = NoteAppProcess(root: session.root, name: name)
        let script = session.root.appendingPathComponent("\(name).sh")
        try """
            #!/bin/sh
            echo $$ > '\(marker.path)'
            exec env BATON_TRACE='\(app.traceURL.path)' '\(ServiceSession.product("BatonTestApp").path)' app --app-id \(installedID) --text '\(name)'
            """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        try session.installDesktopEntry(id: installedID, exec: script.path, teamID: "org.baton.test",
                                        activityTypes: ["org.baton.test.note"])
        return (marker, app)
    }

    /// The pids of running apps registered as `appID`.
    private func runningPIDs(of appID: String) throws -> [Int] {
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        return apps.filter { $0["app-id"] as? String == appID && $0["running"] as? Bool == true }
            .compactMap { $0["pid"] as? Int }
    }

    func testAUserInfoOverTheLimitFailsBeforeTheClaimantIsStarted() throws {
        let (marker, installed) = try installClaimant("installed")
        try startNoteApp("origin", text: "too big", extra: ["--fault", "huge"])
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: too big" }?["id"] as? String)

        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.errorOutput.contains("4611"), result.errorOutput)

        // Had batond started the claimant, its script would have run by now.
        usleep(1_500_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path), "the installed claimant was started")
        XCTAssertEqual(try runningPIDs(of: installedID), [], "no instance of the claimant registered")
        XCTAssertEqual(installed.eventNames, [], "the claimant never ran")
        XCTAssertFalse(batond.log.contains("starting \(installedID)"), batond.log)
        XCTAssertTrue(batond.log.contains("failed before \(installedID) was started"), batond.log)
        try assertServiceAlive()
    }

    func testAGoodPayloadIsFetchedThenTheClaimantStartedAndRestored() throws {
        let (marker, installed) = try installClaimant("installed")
        let origin = try startNoteApp("origin", text: "moving on")
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: moving on" }?["id"] as? String)

        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker.path), "the installed claimant was started")
        let restored = try XCTUnwrap(installed.waitForEvent("restored"), installed.eventNames.description)
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "moving on")
        let continuation = installed.eventNames.filter { ["will-continue", "continued", "restored", "failed"].contains($0) }
        XCTAssertEqual(Array(continuation.prefix(3)), ["will-continue", "continued", "restored"])
        XCTAssertEqual(installed.outcomes.count, 1, "exactly one outcome: \(installed.eventNames)")
        XCTAssertNotNil(origin.waitForEvent("was-continued"), "the origin hears it was continued")

        // The payload was saved by the origin before the claimant was started.
        let log = batond.log
        let saved = try XCTUnwrap(log.range(of: "save timing"), log)
        let starting = try XCTUnwrap(log.range(of: "starting \(installedID) to continue"), log)
        XCTAssertLessThan(saved.lowerBound, starting.lowerBound, log)
        XCTAssertTrue(log.contains("after fetch"), "the timing line says the fetch came first: \(log)")

        for pid in try runningPIDs(of: installedID) { kill(Int32(pid), SIGTERM) }
    }
}
