import Foundation
import ServiceFixtures
import XCTest

/// A paired device's activity names a file by its path, which means a file of that device: an
/// app here never opens this device's own file in its place. Played with a hostile device A
/// whose app (of TextEditor's team and type) names a file it does not describe, and with an
/// innocent one whose file only shares its path with one of B's; then the same-file check,
/// which reads only files in the places the person shares.
final class TextEditorForeignFileTests: DocumentHandoffTestCase {
    /// Starts, on A, an app of TextEditor's team and type whose activity names `file` and
    /// describes no document (its desktop entry declares no document types), titled
    /// "Note: `text`"; returns B's offer of it.
    private func offerNaming(_ file: URL, text: String) throws -> [String: Any] {
        let appID = "org.example.Lure"
        try devices.a.installDesktopEntry(id: appID, exec: ServiceSession.product("BatonTestApp").path + " app --app-id \(appID)",
                                          teamID: "org.example", activityTypes: [TextEditorProcess.activityType])
        _ = try devices.a.start(ServiceSession.product("BatonTestApp"),
                                ["app", "--app-id", appID, "--team", "org.example", "--types", TextEditorProcess.activityType,
                                 "--text", text, "--document-url", file.absoluteString], name: "lure")
        return try XCTUnwrap(devices.b.waitForActivity(titled: "Note: \(text)", timeout: 15), "B lists A's activity")
    }

    /// Installs TextEditor on B (batond B starts it), continues `offer` there and checks that
    /// the editor opened nothing: the continuation failed saying why, with no window of `file`
    /// and no activity naming it.
    private func continueOnBOpeningNothing(_ offer: [String: Any], naming file: URL) throws {
        let onB = TextEditorProcess(root: devices.b.root.appendingPathComponent("editor-b"))
        onB.display = displayB.name
        apps.append(onB)
        try onB.install(in: devices.b)
        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertNotEqual(result.status, 0, "nothing was continued: \(result.output)")
        // A says why (its lure's entry declares no document types), naming no file.
        XCTAssertTrue(result.errorOutput.contains("alpha did not send the file its activity names: "),
                      "the person is told why: \(result.errorOutput)")
        XCTAssertFalse(result.errorOutput.contains(file.lastPathComponent), "no file is named: \(result.errorOutput)")
        let failed = onB.waitForEvent { $0.event == "failed" }
        XCTAssertNotNil(failed, "B's editor hears the continuation failed")
        onB.pid = (failed?["pid"] as? Int).map(Int32.init)
        XCTAssertTrue(try onB.windows(titled: file.lastPathComponent, timeout: 2).isEmpty, "B's editor shows no window of the file")
        XCTAssertFalse(onB.events().contains { ($0.userInfo?["NSUserActivityDocumentURL"] as? String) == file.absoluteString },
                       "B's editor never names the file in an activity")
        // What the hostile device would continue next: B offers nothing of the file.
        XCTAssertFalse(waitUntil(timeout: 3) {
            try self.devices.a.activities().contains { ($0["title"] as? String) == file.lastPathComponent }
        }, "A is offered nothing of B's file")
    }

    /// The attack: A names a text file that only B has, in B's documents folder, and B's
    /// person continues it once. Before, B's editor opened B's own file, B offered it to A, and
    /// A fetched its bytes.
    func testAnActivityNamingAFileOfThisDeviceItDidNotSendOpensNothing() async throws {
        try devices.pair()
        let secret = try makeDocumentsFolderOnB().appendingPathComponent("secret-notes.txt")
        try "the person's own notes, never sent\n".write(to: secret, atomically: true, encoding: .utf8)
        try continueOnBOpeningNothing(try offerNaming(secret, text: "Meeting notes"), naming: secret)
        XCTAssertEqual(try String(contentsOf: secret, encoding: .utf8), "the person's own notes, never sent\n",
                       "B's file is untouched")
    }

    /// Without malice: A's file at a path where B has a different file of its own, and A's
    /// app describes none. B's file is not opened as though it were A's.
    func testADifferentFileAtTheSamePathHereIsNotOpened() async throws {
        try devices.pair()
        let path = folderOnlyOnA.appendingPathComponent("todo.txt")
        try "A's list\n".write(to: path, atomically: true, encoding: .utf8)
        // B's own file at the same path, in B's view of the folder (its mount namespace).
        let onBView = URL(fileURLWithPath: "/proc/\(devices.batondB.pid)/root" + path.path)
        try "B's own list\n".write(to: onBView, atomically: true, encoding: .utf8)
        try continueOnBOpeningNothing(try offerNaming(path, text: "To do"), naming: path)
    }

    /// A described document whose same file lies here at the same path, but outside the
    /// places the person shares (the documents folder, Syncthing's): that file is not read to
    /// compare, so a device cannot learn which files this one holds; the document comes over
    /// the link as a copy instead.
    func testTheSameFileOutsideTheSharedPlacesIsNotUsedButCopied() async throws {
        try devices.pair()
        let elsewhere = devices.a.root.appendingPathComponent("projects", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let file = try TextEditorProcess.writeReport(in: elsewhere)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), "B's processes see the same file at the same path")
        let documentsB = try makeDocumentsFolderOnB()
        let (_, onB, _) = try openOnA(file)
        let copy = documentsB.appendingPathComponent("Continued from alpha/report.md")
        try continueOnB(onB, expecting: copy)
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file))
    }
}
