import Foundation
import ServiceFixtures
import XCTest

/// The whole point: a draft started in MailComposer on device A is continued on device B —
/// another batond with its own bus, identity, pairings and display, linked over pinned TLS on
/// loopback — and closes on A.
final class MailComposerTwoDeviceTests: TwoDesktopTestCase {
    override class func requirements() throws {
        try MailComposerProcess.requirements()
    }

    func testADraftMovesFromOneDeviceToTheOther() throws {
        try devices.pair()

        // Device B has MailComposer installed (not running): batond B starts it on B's display.
        let (onA, onB) = try launchOnA(["--compose", "--to", "bob@example.org", "--cc", "carol@example.org",
                                        "--subject", "Across devices", "--body", "Started on alpha"])
        XCTAssertFalse(try onA.windows(titled: "Across devices").isEmpty)

        let offer = devices.b.waitForActivity(titled: "Draft: Across devices", timeout: 15)
        XCTAssertNotNil(offer, "B lists A's draft")
        XCTAssertEqual(offer?["device"] as? String, "alpha")
        XCTAssertEqual(offer?["type"] as? String, "org.example.mail.compose")
        let id = try XCTUnwrap(offer?["id"] as? String)

        let result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(onB.waitForEvent { $0.event == "restored" }, "MailComposer on B restored the draft")
        XCTAssertEqual(restored.userInfo?["to"] as? String, "bob@example.org")
        XCTAssertEqual(restored.userInfo?["cc"] as? String, "carol@example.org")
        XCTAssertEqual(restored.userInfo?["subject"] as? String, "Across devices")
        XCTAssertEqual(restored.userInfo?["body"] as? String, "Started on alpha")
        XCTAssertEqual(restored.userInfo?["cursor"] as? Int, "Started on alpha".count)
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertFalse(try onB.windows(titled: "Across devices").isEmpty, "the draft window is open on B's display")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            _ = try devices.b.run(URL(fileURLWithPath: "/usr/bin/import"),
                                  ["-display", displayB.name, "-window", "root", "\(folder)/device-b.png"])
        }

        XCTAssertNotNil(onA.waitForEvent { $0.event == "was-continued" }, "A's app hears it was continued")
        XCTAssertTrue(waitUntil { try onA.windows(titled: "Across devices", timeout: 0.1).isEmpty },
                      "the draft window closed on A")
        XCTAssertTrue(waitUntil { onA.log.contains("a draft continued on beta") },
                      "A's main window says where the draft went: \(onA.log.suffix(1000))")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            _ = try devices.a.run(URL(fileURLWithPath: "/usr/bin/import"),
                                  ["-window", "root", "\(folder)/device-a-draft-went.png"])
        }
        if let pid = onB.pid { kill(pid, SIGTERM) }
    }

    /// Installs MailComposer on B (batond B starts it on B's display) and launches it on A
    /// with `arguments`; both apps.
    private func launchOnA(_ arguments: [String]) throws -> (onA: MailComposerProcess, onB: MailComposerProcess) {
        let onB = MailComposerProcess(root: devices.b.root.appendingPathComponent("mail-b"))
        onB.display = displayB.name
        apps.append(onB)
        try onB.install(in: devices.b)
        let onA = MailComposerProcess(root: devices.a.root.appendingPathComponent("mail-a"))
        apps.append(onA)
        try FileManager.default.createDirectory(at: onA.root, withIntermediateDirectories: true)
        try onA.launch(arguments, environment: devices.a.environment)
        return (onA, onB)
    }

    /// Starts MailComposer on A with a draft holding `files`, installs it on B, continues the
    /// draft on B and returns both apps once B restored it.
    private func continueDraft(attaching files: [URL], subject: String,
                               beforeContinuing: (MailComposerProcess) throws -> Void = { _ in })
        throws -> (onA: MailComposerProcess, onB: MailComposerProcess) {
        try devices.pair()
        let (onA, onB) = try launchOnA(["--to", "bob@example.org", "--subject", subject] + files.flatMap { ["--attach", $0.path] })
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "Draft: \(subject)", timeout: 15), "B lists A's draft")
        try beforeContinuing(onA)
        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let restored = try XCTUnwrap(onB.waitForEvent { $0.event == "restored" }, "MailComposer on B restored the draft")
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        return (onA, onB)
    }

    /// Writes `size` bytes that differ from run to run to a file named `name`.
    private func file(_ name: String, size: Int) throws -> URL {
        let url = devices.a.root.appendingPathComponent(name)
        var bytes = [UInt8](repeating: 0, count: size)
        var generator = SystemRandomNumberGenerator()
        for index in stride(from: 0, to: size, by: 8) {
            withUnsafeBytes(of: generator.next()) { random in
                for offset in 0..<min(8, size - index) { bytes[index + offset] = random[offset] }
            }
        }
        try Data(bytes).write(to: url)
        return url
    }

    /// The attachments the app's own last save of its draft lists (an update pass, after
    /// the attachments arrived or were found missing).
    private func attachmentsSaved(by app: MailComposerProcess) -> [String] {
        var names: [String] = []
        waitUntil(timeout: 10) {
            let saved = app.events().last { ($0["event"] as? String) == "updated" && ($0["type"] as? String) == "org.example.mail.compose" }
            names = ((saved?["userInfo"] as? [String: Any])?["attachments"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            return !names.isEmpty
        }
        return names
    }

    func testADraftsAttachmentsMoveWithItByteForByte() throws {
        let big = try file("measurements.bin", size: 50 << 20)
        let small = try file("notes.txt", size: 1000)
        let (onA, onB) = try continueDraft(attaching: [big, small], subject: "With files")
        // MailComposer on B was started by batond B, and writes to its log.
        XCTAssertTrue(waitUntil(timeout: 60) { devices.batondB.log.contains("received 2 attachment(s)") || devices.batondB.log.contains("Missing attachments") },
                      devices.batondB.log)
        XCTAssertTrue(devices.batondB.log.contains("received 2 attachment(s): measurements.bin, notes.txt"), devices.batondB.log)
        let store = onB.dataDirectory.appendingPathComponent("attachments")
        for source in [big, small] {
            let original = try Data(contentsOf: source)
            let names = try FileManager.default.contentsOfDirectory(atPath: store.path).filter { !$0.hasPrefix(".") }
            let copies = try names.map { try Data(contentsOf: store.appendingPathComponent($0)) }
            XCTAssertTrue(copies.contains(original), "\(source.lastPathComponent) arrived byte for byte")
        }
        // What the window holds: its next save lists both files, none missing.
        XCTAssertEqual(attachmentsSaved(by: onB), ["measurements.bin", "notes.txt"])
        XCTAssertNotNil(onA.waitForEvent { $0.event == "was-continued" })
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            _ = try devices.b.run(URL(fileURLWithPath: "/usr/bin/import"),
                                  ["-display", displayB.name, "-window", "root", "\(folder)/attachments-device-b.png"])
        }
    }

    func testAnAttachmentThatCannotBeSentIsSaidMissingAndTheDraftStillMoves() throws {
        let kept = try file("kept.txt", size: 2000)
        let lost = try file("lost.txt", size: 3000)
        let (_, onB) = try continueDraft(attaching: [kept, lost], subject: "One file lost") { onA in
            // A loses one file's bytes from its store before B asks for them.
            let store = onA.dataDirectory.appendingPathComponent("attachments")
            let lostBytes = try Data(contentsOf: lost)
            for name in try FileManager.default.contentsOfDirectory(atPath: store.path)
            where (try? Data(contentsOf: store.appendingPathComponent(name))) == lostBytes {
                try FileManager.default.removeItem(at: store.appendingPathComponent(name))
            }
        }
        XCTAssertTrue(waitUntil(timeout: 20) { devices.batondB.log.contains("Missing attachments") }, devices.batondB.log)
        XCTAssertTrue(devices.batondB.log.contains("Missing attachments: lost.txt (the other device did not send it)"), devices.batondB.log)
        XCTAssertTrue(devices.batondB.log.contains("received 1 attachment(s): kept.txt"), devices.batondB.log)
        XCTAssertEqual(attachmentsSaved(by: onB), ["kept.txt", "lost.txt"],
                       "the missing file stays listed, never silently dropped")
    }
}
