import Foundation
import ServiceFixtures
import XCTest

/// An app whose document has a custom extension without a shared-mime-info definition: GIO on
/// the origin types the file `text/plain`, not the type the app declares, so the origin
/// withholds it. The continuing device says so to its person, and why, naming no file; the
/// origin says it in its log. Two batonds on two buses, paired over pinned TLS.
final class WithheldDocumentTests: PairedDevicePairTestCase {
    func testADocumentOfATypeTheDesktopDoesNotKnowFailsSayingWhy() throws {
        let appID = "org.baton.Todo"
        let program = ServiceSession.product("BatonTestApp").path
        try devices.a.installDesktopEntry(id: appID, exec: program + " app --app-id \(appID)", teamID: "org.baton.test",
                                          activityTypes: ["org.baton.test.note"],
                                          extraLines: ["X-Baton-DocumentTypes=application/x-baton-test-todo:org.baton.test.note;"])
        let folder = devices.a.root.appendingPathComponent("Lists", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("groceries.todo")
        try "{\"items\": [\"milk\", \"bread\"], \"done\": false}\n".write(to: file, atomically: true, encoding: .utf8)
        _ = try devices.a.start(ServiceSession.product("BatonTestApp"),
                                ["app", "--app-id", appID, "--text", "shopping", "--document-url", file.absoluteString],
                                name: "todo")
        let target = try devices.b.startInstalledNote("target", text: "idle", extra: ["--app-id", "org.baton.Target"])
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: shopping", timeout: 15), "B lists A's list")

        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertNotEqual(result.status, 0, "nothing was continued: \(result.output)")
        let said = "alpha did not send the file its activity names: its type there, text/plain, is not one the app declares "
            + "for this activity — the app needs a shared-mime-info definition for its file extension"
        XCTAssertTrue(result.errorOutput.contains(said), "the person is told why: \(result.errorOutput)")
        XCTAssertFalse(result.errorOutput.contains("groceries"), "no file is named: \(result.errorOutput)")
        let failed = try XCTUnwrap(target.waitForEvent("failed"), "B's app hears the continuation failed")
        XCTAssertTrue((failed["error"] as? String ?? "").contains(said), "the app's error says why: \(failed)")
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")

        let originLog = devices.batondA.log
        XCTAssertTrue(originLog.contains("not sending the document of \(appID)'s org.baton.test.note: its desktop entry does not "
                                         + "declare text/plain for org.baton.test.note (X-Baton-DocumentTypes declares "
                                         + "application/x-baton-test-todo)"), originLog)
        XCTAssertFalse(originLog.contains("groceries"), "the origin's log names no file either")
        XCTAssertTrue(devices.batondB.log.contains("alpha's activity names a file it did not send (undeclaredType"),
                      devices.batondB.log)
    }
}
