import Foundation
import ServiceFixtures
import XCTest

/// Documents through libbaton (`document-app.py`, a Python app that declares the type "Note"
/// for `org.example.notes.document`): a file it opens is a document whose activity (titled
/// with the file's name, carrying its URL) is current, and a continued activity naming
/// another such file, which the app's `continue` declines (it has no handler), reopens that
/// file in a new window through `open-document`.
final class GObjectDocumentTests: XCTestCase {
    private var session: ServiceSession!
    private var app: NotesExampleProcess!
    private var process: Process?

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try NotesExampleProcess.requirements(.python)
        session = try ServiceSession()
        try session.startBus()
        try session.startBatond()
        app = NotesExampleProcess(.python, root: session.root.appendingPathComponent("documents"))
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0, let app { print("--- document-app.py\n\(app.log.suffix(3000))") }
        if let process, process.isRunning { process.terminate() }
        session?.tearDown()
    }

    func testADocumentsActivityIsCurrentAndAContinuedOneReopensItsFile() throws {
        let folder = session.root.appendingPathComponent("notes", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = folder.appendingPathComponent("groceries.note")
        let second = folder.appendingPathComponent("plans.note")
        try "Milk, bread".write(to: first, atomically: true, encoding: .utf8)
        try "Trip in May".write(to: second, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = NotesExampleProcess.python
        process.arguments = [SourceTree.path("Tests/GObjectExampleTests/document-app.py").path, first.path]
        process.environment = session.environment.merging(app.libraryEnvironment) { $1 }
        try FileManager.default.createDirectory(at: app.root, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: app.logURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: app.logURL)
        try process.run()
        self.process = process
        app.pid = process.processIdentifier
        let window = try XCTUnwrap(app.windows(titled: "groceries.note", timeout: 20).first, "the document's window opened")
        try app.focus(window)

        let current = try XCTUnwrap(session.waitForActivity(titled: "groceries.note", timeout: 15),
                                    "the document's activity is listed, titled with its file's name")
        XCTAssertEqual(current["type"] as? String, "org.example.notes.document")
        XCTAssertTrue(waitUntil(timeout: 10) {
            let inspected = try self.session.baton(["inspect", "--json"]).json as? [String: Any]
            let userInfo = inspected?["userInfo"] as? [String: Any]
            return userInfo?["NSUserActivityDocumentURL"] as? String == first.absoluteString
                && userInfo?["length"] as? Int == 11
        }, "baton inspect shows the document's URL (the document's part) and the length (the app's)")

        let activityFile = session.root.appendingPathComponent("plans.json")
        try JSONSerialization.data(withJSONObject: [
            "type": "org.example.notes.document", "title": "plans.note", "teamID": "org.example",
            "userInfo": ["NSUserActivityDocumentURL": second.absoluteString],
        ]).write(to: activityFile)
        let result = try session.baton(["continue", "--file", activityFile.path])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(app.waitForEvent(timeout: 15) { $0.event == "restored" }, "the document was reopened")
        XCTAssertEqual(restored.userInfo?["NSUserActivityDocumentURL"] as? String, second.absoluteString)
        XCTAssertFalse(try app.windows(titled: "plans.note").isEmpty, "its window opened")
        XCTAssertTrue(waitUntil(timeout: 5) { self.app.log.contains("restored \(second.absoluteString)") },
                      "the window's activity (the document's) got restore-state")
    }
}
