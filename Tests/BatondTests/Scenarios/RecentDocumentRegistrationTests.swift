import Foundation
import ServiceFixtures
import XCTest

/// An app that adopts Baton registers after its document entered the recent list (it started
/// before batond, or batond restarted): batond stops offering that document from the list at
/// once, as the app's own activity is the richer offer, without waiting for the list to change.
///
/// batond runs with a home of its own and no `DISPLAY`, so it chooses by recency; the list's
/// entry names the app by its id and runs `sleep`, a program the test keeps running.
final class RecentDocumentRegistrationTests: ServiceTestCase {
    private var program: ChildProcess?

    override func prepare(_ session: ServiceSession) throws {
        try session.useOwnHomeWithoutDisplay()
    }

    override func tearDown() {
        program?.stop()
        super.tearDown()
    }

    private func offeredFromTheList() throws -> [String] {
        try activities().filter { $0["source"] as? String == "recent list" }.compactMap { $0["title"] as? String }
    }

    func testAnAdoptingAppThatRegistersTakesItsDocumentBackFromTheList() throws {
        let display = try XCTUnwrap(ProcessInfo.processInfo.environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 },
                                    "no display: run under xvfb-run")
        let file = session.root.appendingPathComponent("home/Docs/notes.txt")
        try Data("notes\n".utf8).write(to: file)
        program = try session.start(URL(fileURLWithPath: "/bin/sleep"), ["600"], name: "sleep")
        try RecentListXML.replace(RecentListXML.list([
            RecentListXML.bookmark(file.path, app: "org.baton.TestApp", exec: "&apos;sleep %u&apos;"),
        ]), at: session.dataHome.appendingPathComponent("recently-used.xbel"))
        XCTAssertTrue(waitUntil(timeout: 10) { try self.offeredFromTheList() == ["notes.txt — org.baton.TestApp"] },
                      "batond offers the entry before the app registers: \(batond.log.suffix(2000))")

        try session.installTestAppEntry(id: "org.baton.TestApp")
        let app = NoteAppProcess(root: session.root, name: "app")
        app.child = try session.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "hello"], name: "app",
                                      environment: ["DISPLAY": display, "BATON_TRACE": app.traceURL.path])
        XCTAssertTrue(waitUntil(timeout: 10) { 
            let apps = try self.session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
            return apps.contains { $0["app-id"] as? String == "org.baton.TestApp" && $0["pid"] != nil }
         },
                      "the app registered: \(app.child.log)")
        XCTAssertTrue(waitUntil(timeout: 3) { try self.offeredFromTheList().isEmpty },
                      "the app's document is still offered from the list: \(String(describing: try? offeredFromTheList()))")
    }
}
