import Foundation
import ServiceFixtures
import XCTest

/// A note typed in the Python app on device A continues on device B, where batond starts the
/// Python app (not running there) and the note restores into a new window, which then holds
/// it: its own next update pass carries the text.
final class PythonNotesTwoDeviceTests: TwoDesktopTestCase {
    private var notesProcesses: [PythonNotesProcess] = []

    override class func requirements() throws {
        if let missing = TestDesktopKind.x11.missingRequirement { throw XCTSkip(missing) }
        try PythonNotesProcess.requirements()
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            notesProcesses.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(3000))") }
        }
        notesProcesses.forEach { $0.stop() }
        if let pid = notesProcesses.last?.pid, notesProcesses.last?.interpreterProcess == nil { kill(pid, SIGTERM) }
        super.tearDown()
    }

    func testANoteContinuesIntoThePythonAppStartedOnTheOtherDevice() throws {
        try devices.pair()
        let onA = PythonNotesProcess(root: devices.a.root.appendingPathComponent("notes-a"))
        let onB = PythonNotesProcess(root: devices.b.root.appendingPathComponent("notes-b"))
        onB.display = displayB.name
        notesProcesses = [onA, onB]
        try onA.installNotes(in: devices.a)
        try onB.installNotes(in: devices.b)

        try onA.launchNotes(environment: devices.a.environment)
        let window = try XCTUnwrap(onA.windows(titled: "Note", timeout: 20).first)
        let text = "Pick up the parcel"
        try onA.type(text, into: window)
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: \(text)", timeout: 20), "B lists A's note")
        XCTAssertEqual(offer["device"] as? String, "alpha")

        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(onB.waitForEvent(timeout: 20) { $0.event == "restored" },
                                     "batond B started the Python app, which restored the note")
        XCTAssertEqual(restored.userInfo?["text"] as? String, text)
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertEqual(try onB.windows { $0.hasPrefix("Note") }.count, 1,
                       "one note window is open on B's display: the continued one, no default window beside it")
        // The window holds the note: its own activity's next update pass carries the text.
        XCTAssertTrue(waitUntil(timeout: 10) { onB.lastSavedText == text },
                      "B's window saves the restored text: \(String(describing: onB.lastSavedText))")
        XCTAssertNotNil(onA.waitForEvent { $0.event == "was-continued" }, "A's app hears it was continued")
    }
}
