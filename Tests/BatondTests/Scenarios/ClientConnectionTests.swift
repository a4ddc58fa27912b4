import Foundation
import ServiceFixtures
import XCTest

/// Apps without the service run normally, connect when it appears, and D-Bus activation
/// starts the service.
final class ClientConnectionTests: XCTestCase {
    var session: ServiceSession!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        session = try ServiceSession()
        try session.startBus()
    }

    override func tearDown() {
        session?.tearDown()
    }

    func testAnAppStartedBeforeTheServiceConnectsWhenItAppears() throws {
        let trace = session.root.appendingPathComponent("early.trace.jsonl")
        let app = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "early"], name: "early",
                                    environment: ["BATON_TRACE": trace.path])
        XCTAssertTrue(waitUntil { app.log.contains("the Baton service is not running; Handoff starts when it does") },
                      app.log)
        XCTAssertTrue(app.isRunning)
        try session.startBatond()
        XCTAssertTrue(waitUntil {
            let listed = try session.baton(["activities", "--json"]).json as? [[String: Any]] ?? []
            return listed.contains { $0["title"] as? String == "Note: early" }
        }, "the app registered and published once the service appeared")
        XCTAssertEqual(app.log.components(separatedBy: "not running").count - 1, 1, "one log line, not one per retry")
    }

    func testAnAppWithoutASessionBusRunsWithoutHandoff() throws {
        let trace = session.root.appendingPathComponent("nobus.trace.jsonl")
        let app = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "alone"], name: "nobus",
                                    environment: ["BATON_TRACE": trace.path,
                                                  "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        XCTAssertTrue(waitUntil { app.log.contains("Handoff is off: no D-Bus session bus") }, app.log)
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: trace, encoding: .utf8)) ?? "").contains("\"current\"") },
                      "the app's activities still work")
        XCTAssertTrue(app.isRunning)
    }

    func testTheToolStartsTheServiceThroughTheShippedDBusServiceFile() throws {
        let shipped = SourceTree.path("Sources/batond/Resources/org.baton.Daemon.service")
        let service = try String(contentsOf: shipped, encoding: .utf8)
            .replacingOccurrences(of: "@bindir@", with: ServiceSession.productsFolder.path)
        try service.write(to: session.servicesFolder.appendingPathComponent("org.baton.Daemon.service"),
                          atomically: true, encoding: .utf8)
        let status = try session.baton(["status", "--json"])
        XCTAssertEqual(status.status, 0, status.errorOutput)
        XCTAssertEqual((status.json as? [String: Any])?["interface"] as? String, "org.baton.Daemon1")
        if let pid = (status.json as? [String: Any])?["pid"] as? Int { kill(Int32(pid), SIGTERM) }
    }

    func testTheToolSaysWhenTheServiceIsMissing() throws {
        let status = try session.baton(["status"])
        XCTAssertEqual(status.status, 1)
        XCTAssertTrue(status.errorOutput.contains("the Baton service is not running"), status.errorOutput)
    }
}
