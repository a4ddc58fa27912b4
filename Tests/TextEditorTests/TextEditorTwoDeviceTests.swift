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
        try FileManager.default.createDirectory(at: onB.root, withIntermediateDirectories: true)
        try onB.desktopEntryStartingThisInstance()
            .write(to: devices.b.dataHome.appendingPathComponent("applications/org.example.TextEditor.desktop"),
                   atomically: true, encoding: .utf8)

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

/// The same, where the file is only on device A (B's batond and apps see A's folder empty,
/// as a second machine would not have it): the bytes come over the link into "Continued from
/// alpha" under B's documents folder, the document opens from there with a note, and nothing
/// on B is overwritten by a second continuation.
final class TextEditorCopiedDocumentTests: XCTestCase {
    private var devices: DevicePair!
    private var displayB: VirtualDisplay!
    private var apps: [TextEditorProcess] = []

    override func setUpWithError() throws {
        try TextEditorProcess.requirements()
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "Xvfb is missing")
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--mount", "true"]
        try probe.run()
        probe.waitUntilExit()
        try XCTSkipUnless(probe.terminationStatus == 0, "unshare --mount is not allowed here (it needs root)")
        displayB = try VirtualDisplay()
        devices = try DevicePair(displayB: displayB.name, hidingFromB: "only-on-alpha")
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

    func testADocumentOnlyOnTheOriginIsCopiedByteForByteAndNeverOverwritesOne() async throws {
        try devices.pair()
        let folder = try XCTUnwrap(devices.privateFolderOfA)
        let file = try TextEditorProcess.writeReport(in: folder)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("Ünïcödé, tabs\tand “quotes”.\n".utf8))
        try handle.close()
        // B's documents folder, where GLib looks for it.
        let documentsB = devices.b.root.appendingPathComponent("Documents", isDirectory: true)
        let configB = devices.b.root.appendingPathComponent("config", isDirectory: true)
        try FileManager.default.createDirectory(at: configB, withIntermediateDirectories: true)
        try "XDG_DOCUMENTS_DIR=\"\(documentsB.path)\"\n".write(to: configB.appendingPathComponent("user-dirs.dirs"),
                                                                atomically: true, encoding: .utf8)

        let onB = TextEditorProcess(root: devices.b.root.appendingPathComponent("editor-b"))
        onB.display = displayB.name
        apps.append(onB)
        try FileManager.default.createDirectory(at: onB.root, withIntermediateDirectories: true)
        try onB.desktopEntryStartingThisInstance()
            .write(to: devices.b.dataHome.appendingPathComponent("applications/org.example.TextEditor.desktop"),
                   atomically: true, encoding: .utf8)
        // A's batond sends a document only for an app whose entry declares its type.
        let onA = TextEditorProcess(root: devices.a.root.appendingPathComponent("editor-a"))
        apps.append(onA)
        try onA.desktopEntryStartingThisInstance()
            .write(to: devices.a.dataHome.appendingPathComponent("applications/org.example.TextEditor.desktop"),
                   atomically: true, encoding: .utf8)
        try onA.launch([file.path], environment: devices.a.environment)
        let window = try XCTUnwrap(onA.windows(titled: "report.md").first)
        try onA.key("ctrl+Home", in: window)
        for _ in 0..<3 { try onA.key("Page_Down", in: window) }
        XCTAssertTrue(waitUntil { (onA.lastPosition()?.cursor ?? 0) > 30 })
        usleep(500_000)
        let onAlpha = try XCTUnwrap(onA.lastPosition())

        let copy = documentsB.appendingPathComponent("Continued from alpha/report.md")
        try continueOnB(expecting: copy)
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file), "the copy is byte for byte the file on A")
        let mode = try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the copy is private to the person")
        XCTAssertTrue(waitUntil {
            guard let now = onB.lastPosition(where: { ($0.userInfo?["NSUserActivityDocumentURL"] as? String) == copy.absoluteString })
            else { return false }
            return now.cursor == onAlpha.cursor && now.middle == onAlpha.middle
        }, "B's window shows the copy at A's lines: \(onAlpha) on A, \(String(describing: onB.lastPosition())) on B")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            _ = try devices.b.run(URL(fileURLWithPath: "/usr/bin/import"),
                                  ["-display", displayB.name, "-window", "root", "\(folder)/texteditor-copy-device-b.png"])
        }

        // The person edits the copy on B; continuing A's document again makes a second copy.
        try "edited on beta\n".write(to: copy, atomically: true, encoding: .utf8)
        if let pid = onB.pid { kill(pid, SIGTERM) }
        XCTAssertTrue(waitUntil { onB.pid.map { kill($0, 0) != 0 } ?? true }, "B's editor quit")
        try continueOnB(expecting: documentsB.appendingPathComponent("Continued from alpha/report (2).md"))
        XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), "edited on beta\n", "the first copy is untouched")
        XCTAssertFalse(devices.batondA.log.contains("Line 17 of the report"), "A's log holds no document text")
        XCTAssertFalse(devices.batondB.log.contains("Line 17 of the report"), "B's log holds no document text")
    }

    /// Continues A's current activity on B and waits until B's editor restored it from `copy`.
    private func continueOnB(expecting copy: URL) throws {
        let onB = apps[0]
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "report.md", timeout: 15), "B lists A's document")
        let before = onB.events().filter { $0.event == "restored" }.count
        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil(timeout: 15) { onB.events().filter { $0.event == "restored" }.count > before },
                      "TextEditor on B reopened it")
        let restored = try XCTUnwrap(onB.events().last { $0.event == "restored" })
        XCTAssertEqual(restored.userInfo?["NSUserActivityDocumentURL"] as? String, copy.absoluteString, "the activity names the copy")
        XCTAssertEqual(restored.userInfo?["BatonDocumentCopiedFrom"] as? String, "alpha")
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertFalse(try onB.windows(titled: copy.lastPathComponent).isEmpty, "the copy's window is open on B's display")
    }
}
