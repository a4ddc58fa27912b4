import Foundation
import ServiceFixtures
import XCTest

/// A document edited in TextEditor on device A continues in TextEditor on device B at the
/// same lines: two batonds with their own buses, identities and displays, paired over pinned
/// TLS on loopback. Both devices here have the same documents folder, as two machines with a
/// network home do; the app on B implements no `continue…`, so the framework reopens the
/// document in place and its window restores the position. B never sends that file back to
/// A unchanged: A's own continuation named it.
final class TextEditorTwoDeviceTests: TwoDesktopTestCase {
    override class func requirements() throws {
        try TextEditorProcess.requirements()
    }

    func testADocumentContinuesOnTheOtherDeviceAtTheSameLine() async throws {
        try devices.pair()
        let shared = devices.a.root.appendingPathComponent("network-home/Documents", isDirectory: true)
        try devices.a.useDocumentsFolder(shared)
        try devices.b.useDocumentsFolder(shared)
        let file = try TextEditorProcess.writeReport(in: shared)

        // Device B has TextEditor installed (not running): batond B starts it on B's display.
        let (onA, onB, window) = try openInTextEditorOnA(file, pagesDown: 5)
        try onA.key("End", in: window)
        try onA.type(" Edited on alpha.", into: window)
        XCTAssertTrue(waitUntil { (try String(contentsOf: file, encoding: .utf8)).contains(" Edited on alpha.") },
                      "A saved the edit")
        usleep(500_000)
        let onAlpha = try XCTUnwrap(onA.lastPosition())
        XCTAssertGreaterThan(onAlpha.middle, 40, "A's view is well into the document")

        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "report.md", timeout: 15), "B lists A's document")
        XCTAssertEqual(offer["device"] as? String, "alpha")
        XCTAssertEqual(offer["type"] as? String, TextEditorProcess.activityType)
        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)

        let restored = try XCTUnwrap(onB.waitForEvent(timeout: 15) { $0.event == "restored" }, "TextEditor on B reopened it")
        XCTAssertEqual(restored.userInfo?["NSUserActivityDocumentURL"] as? String, file.absoluteString)
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertFalse(try onB.windows(titled: "report.md").isEmpty, "the document's window is open on B's display")
        // What B's window holds: its own next update, once its view has settled.
        XCTAssertTrue(waitUntil {
            guard let now = onB.lastPosition() else { return false }
            return now.cursor == onAlpha.cursor && now.column == onAlpha.column && now.middle == onAlpha.middle
        }, "B shows the same lines: \(onAlpha) on A, \(String(describing: onB.lastPosition())) on B")
        XCTAssertNotNil(onA.waitForEvent { $0.event == "was-continued" }, "A's app hears it was continued")
        XCTAssertFalse(try onA.windows(titled: "report.md").isEmpty, "a document stays open on A: both devices may edit it")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            _ = try devices.b.run(URL(fileURLWithPath: "/usr/bin/import"),
                                  ["-display", displayB.name, "-window", "root", "\(folder)/texteditor-device-b.png"])
        }

        // Back to A: B does not send A the file A's continuation opened, while it is unchanged.
        let back = try XCTUnwrap(offerFromB(titled: "report.md"), "A lists B's document")
        let refused = try devices.a.baton(["continue", XCTUnwrap(back["id"] as? String)])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.errorOutput.contains("beta did not send the file its activity names"), refused.errorOutput)
        XCTAssertTrue(devices.batondB.log.contains("that device's own continuation opened it here"), "B says why it sent none")
        // Once the person edits it on B, it is B's work, and goes back to A.
        let windowB = try XCTUnwrap(try onB.windows(titled: "report.md").first)
        try onB.focus(windowB)
        try onB.type(" Edited on beta.", into: windowB)
        XCTAssertTrue(waitUntil { (try String(contentsOf: file, encoding: .utf8)).contains(" Edited on beta.") }, "B saved the edit")
        let restoredOnA = onA.events().filter { $0.event == "restored" }.count
        let edited = try XCTUnwrap(offerFromB(titled: "report.md"), "A lists B's document")
        let result2 = try devices.a.baton(["continue", XCTUnwrap(edited["id"] as? String)])
        XCTAssertEqual(result2.status, 0, result2.errorOutput)
        XCTAssertTrue(waitUntil { onA.events().filter { $0.event == "restored" }.count > restoredOnA }, "A's editor restored it")
        XCTAssertEqual(onA.events().last { $0.event == "restored" }?.userInfo?["NSUserActivityDocumentURL"] as? String,
                       file.absoluteString, "A opens its own file again, in place")
        if let pid = onB.pid { kill(pid, SIGTERM) }
    }

    /// B's offer titled `title`, as A lists it, once it does.
    private func offerFromB(titled title: String) throws -> [String: Any]? {
        var found: [String: Any]?
        _ = waitUntil(timeout: 15) {
            found = try self.devices.a.activities().first { $0["device"] as? String == "beta" && $0["title"] as? String == title }
            return found != nil
        }
        return found
    }
}
