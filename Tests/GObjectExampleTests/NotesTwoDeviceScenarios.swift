import Foundation
import ServiceFixtures
import XCTest

/// A note typed in one notes example on device A continues on device B, where batond starts
/// a notes example (not running there; of the same or another language, for the same activity
/// type) and the note restores into a new window, the only one, which then holds it: its own
/// next update pass carries the text. A's app hears that it was continued.
class NotesTwoDeviceScenarios: TwoDesktopTestCase {
    /// The example on A, and the one B has installed.
    class var languages: (a: NotesLanguage, b: NotesLanguage) { (.python, .python) }

    private var notesProcesses: [NotesExampleProcess] = []

    override class func requirements() throws {
        try NotesExampleProcess.requirements(languages.a, languages.b)
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            notesProcesses.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(3000))") }
        }
        notesProcesses.forEach { $0.stop() }
        super.tearDown()
    }

    func checkANoteContinuesIntoTheAppStartedOnTheOtherDevice() throws {
        try devices.pair()
        let onA = NotesExampleProcess(Self.languages.a, root: devices.a.root.appendingPathComponent("notes-a"))
        let onB = NotesExampleProcess(Self.languages.b, root: devices.b.root.appendingPathComponent("notes-b"))
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
                                     "batond B started \(onB.appID), which restored the note")
        XCTAssertEqual(restored.userInfo?["text"] as? String, text)
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertEqual(try onB.windows { $0.hasPrefix("Note") }.count, 1,
                       "one note window is open on B's display: the continued one, no default window beside it")
        XCTAssertTrue(waitUntil(timeout: 10) { onB.lastSavedText == text },
                      "B's window saves the restored text: \(String(describing: onB.lastSavedText))")
        XCTAssertNotNil(onA.waitForEvent { $0.event == "was-continued" }, "A's app hears it was continued")
    }
}

/// A Python note continues into the Python app on the other device.
final class PythonNotesTwoDeviceTests: NotesTwoDeviceScenarios {
    override class var languages: (a: NotesLanguage, b: NotesLanguage) { (.python, .python) }

    func testANoteContinuesIntoThePythonAppStartedOnTheOtherDevice() throws {
        try checkANoteContinuesIntoTheAppStartedOnTheOtherDevice()
    }
}

/// A Python note continues into the C app of the same activity type on the other device.
final class PythonToCNotesTwoDeviceTests: NotesTwoDeviceScenarios {
    override class var languages: (a: NotesLanguage, b: NotesLanguage) { (.python, .c) }

    func testAPythonNoteContinuesIntoTheCAppStartedOnTheOtherDevice() throws {
        try checkANoteContinuesIntoTheAppStartedOnTheOtherDevice()
    }
}

/// A Python note continues into the GJS app of the same activity type on the other device.
final class PythonToJavaScriptNotesTwoDeviceTests: NotesTwoDeviceScenarios {
    override class var languages: (a: NotesLanguage, b: NotesLanguage) { (.python, .javascript) }

    func testAPythonNoteContinuesIntoTheGJSAppStartedOnTheOtherDevice() throws {
        try checkANoteContinuesIntoTheAppStartedOnTheOtherDevice()
    }
}
