import Foundation
import ServiceFixtures
import XCTest

/// A document edited in TextEditor on device A continues in TextEditor on device B at the
/// same lines: two batonds with their own buses, identities and displays, paired over pinned
/// TLS on loopback. Both devices here see the same file system, as two machines see a file
/// in a folder they share; the app on B implements no `continue…`, so the framework reopens
/// the document and its window restores the position.
final class TextEditorTwoDeviceTests: XCTestCase {
    private var devices: DevicePair!
    private var displayB: VirtualDisplay!
    private var apps: [TextEditorProcess] = []

    override func setUpWithError() throws {
        try TextEditorProcess.requirements()
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "Xvfb is missing")
        displayB = try VirtualDisplay()
        devices = try DevicePair(displayB: displayB.name)
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            devices?.printLogs()
            apps.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(2000))") }
        }
        apps.forEach { $0.terminate() }
        devices?.tearDown()
        displayB?.stop()
    }

    func testADocumentContinuesOnTheOtherDeviceAtTheSameLine() async throws {
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: devices.a.root)

        // Device B has TextEditor installed (not running): batond B starts it on B's display.
        let onB = TextEditorProcess(root: devices.b.root.appendingPathComponent("editor-b"))
        onB.display = displayB.name
        apps.append(onB)
        try onB.install(in: devices.b)

        let onA = TextEditorProcess(root: devices.a.root.appendingPathComponent("editor-a"))
        apps.append(onA)
        try onA.launch([file.path], environment: devices.a.environment)
        let window = try XCTUnwrap(onA.windows(titled: "report.md").first)
        try onA.key("ctrl+Home", in: window)
        for _ in 0..<5 { try onA.key("Page_Down", in: window) }
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
        if let pid = onB.pid { kill(pid, SIGTERM) }
    }
}
