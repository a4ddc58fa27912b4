import Foundation
import ServiceFixtures
import XCTest

/// A test with its own session bus and batond; the note apps it starts need a display.
class ServiceTestCase: XCTestCase {
    var session: ServiceSession!
    var batond: ChildProcess!

    /// Arguments for batond; override to change its timeouts.
    var batondArguments: [String] { [] }

    /// Prepares the session before its bus and batond start; override to set its environment
    /// (a `HOME` of its own, no `DISPLAY`).
    func prepare(_ session: ServiceSession) throws {}

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        session = try ServiceSession()
        try prepare(session)
        try session.startBus()
        batond = try session.startBatond(batondArguments)
    }

    override func tearDown() {
        if let session, testRun?.hasSucceeded == false { session.printLogs() }
        session?.tearDown()
    }

    func requireDisplay() throws {
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
    }

    /// Starts the note app; waits until its activity is listed unless `waitForListing` is false.
    @discardableResult
    func startNoteApp(_ name: String, text: String = "hello", extra: [String] = [],
                      waitForListing: Bool = true) throws -> NoteAppProcess {
        try requireDisplay()
        let app = NoteAppProcess(root: session.root, name: name)
        app.child = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", text] + extra,
                                      name: name, environment: ["BATON_TRACE": app.traceURL.path])
        if waitForListing {
            XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: \(text)" } },
                          "the note app's activity was never listed")
        }
        return app
    }

    /// `baton activities --json`.
    func activities() throws -> [[String: Any]] {
        let result = try session.baton(["activities", "--json"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        return result.json as? [[String: Any]] ?? []
    }

    /// Writes an activity file for `baton continue --file` / `baton offer --file`.
    func activityFile(_ object: [String: Any]) throws -> String {
        let url = session.root.appendingPathComponent("\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url.path
    }

    /// Asserts the service still answers.
    func assertServiceAlive(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(batond.isRunning, "batond exited: \(batond.log)", file: file, line: line)
        XCTAssertEqual(try session.baton(["status"]).status, 0, file: file, line: line)
    }
}

/// A note app process and its trace.
final class NoteAppProcess {
    let traceURL: URL
    var child: ChildProcess!

    init(root: URL, name: String) {
        traceURL = root.appendingPathComponent("\(name).trace.jsonl")
    }

    var events: [[String: Any]] { TraceFile.events(at: traceURL) }

    /// The names of the trace events, in order.
    var eventNames: [String] { events.compactMap { $0["event"] as? String } }

    /// The continuation outcomes in the trace: `restored` and `failed` events.
    var outcomes: [[String: Any]] {
        events.filter { ["restored", "failed"].contains($0["event"] as? String) }
    }

    func waitForEvent(_ name: String, timeout: TimeInterval = 15) -> [String: Any]? {
        var found: [String: Any]?
        waitUntil(timeout: timeout) {
            found = events.first { $0["event"] as? String == name }
            return found != nil
        }
        return found
    }
}

extension ServiceSession {
    /// Starts the note app on this device, installed (so verified: only a verified app
    /// receives another device's activity), and waits until its activity is listed here,
    /// which means it registered. Its trace records what its delegate heard.
    func startInstalledNote(_ name: String, text: String, extra: [String] = []) throws -> NoteAppProcess {
        let appID = extra.firstIndex(of: "--app-id").map { extra[$0 + 1] } ?? "org.baton.TestApp"
        try installTestAppEntry(id: appID)
        let app = NoteAppProcess(root: root, name: name)
        app.child = try start(ServiceSession.product("BatonTestApp"), ["app", "--text", text] + extra,
                              name: name, environment: ["BATON_TRACE": app.traceURL.path])
        guard waitForActivity(titled: "Note: \(text)") != nil else {
            throw FixtureError("\(name) never registered its activity on its device")
        }
        return app
    }
}
