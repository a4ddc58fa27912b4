import Foundation
import ServiceFixtures
import XCTest

/// The whole point: a draft started in MailComposer on device A is continued on device B —
/// another batond with its own bus, identity, pairings and display, linked over pinned TLS on
/// loopback — and closes on A.
final class MailComposerTwoDeviceTests: XCTestCase {
    private var devices: DevicePair!
    private var displayB: VirtualDisplay!
    private var apps: [MailComposerProcess] = []

    override func setUpWithError() throws {
        try MailComposerProcess.requirements()
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

    func testADraftMovesFromOneDeviceToTheOther() throws {
        try devices.pair()

        // Device B has MailComposer installed (not running): batond B starts it on B's display.
        let onB = MailComposerProcess(root: devices.b.root.appendingPathComponent("mail-b"))
        onB.display = displayB.name
        apps.append(onB)
        try FileManager.default.createDirectory(at: onB.root, withIntermediateDirectories: true)
        let entry = try onB.desktopEntryStartingThisInstance()
        try entry.write(to: devices.b.dataHome.appendingPathComponent("applications/org.example.MailComposer.desktop"),
                        atomically: true, encoding: .utf8)

        let onA = MailComposerProcess(root: devices.a.root.appendingPathComponent("mail-a"))
        apps.append(onA)
        try FileManager.default.createDirectory(at: onA.root, withIntermediateDirectories: true)
        try onA.launch(["--compose", "--to", "bob@example.org", "--cc", "carol@example.org",
                        "--subject", "Across devices", "--body", "Started on alpha"],
                       environment: devices.a.environment)
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
        if let pid = onB.pid { kill(pid, SIGTERM) }
    }
}
