import Foundation
import ServiceFixtures
import XCTest

/// A document in a folder that real Syncthing instances share between the two devices, each
/// device (its batond and its Syncthing) in its own network namespace, discovery and relays
/// off: B opens its own synced copy, shows the wait while its sync is paused, and opens the
/// document as soon as it arrives.
class TextEditorSyncthingScenarios: DocumentHandoffTestCase {
    override class var usesNetworkNamespaces: Bool { true }

    var syncthing: SyncthingPair!
    var notesOnA: URL!
    var notesOnB: URL!

    override func setUpWithError() throws {
        if let missing = SyncthingPair.missingRequirement { throw XCTSkip(missing) }
        try super.setUpWithError()
        notesOnA = folderOnlyOnA.appendingPathComponent("Notes", isDirectory: true)
        notesOnB = devices.b.root.appendingPathComponent("Sync/Notes", isDirectory: true)
        // Where each device's batond finds its Syncthing: $XDG_CONFIG_HOME/syncthing.
        syncthing = try SyncthingPair(homeA: devices.a.root.appendingPathComponent("config/syncthing"), folderA: notesOnA,
                                      homeB: devices.b.root.appendingPathComponent("config/syncthing"), folderB: notesOnB,
                                      namespaces: devices.namespaces)
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 { syncthing?.printLogs() }
        syncthing?.stop()
        super.tearDown()
    }
}

final class TextEditorSyncthingTests: TextEditorSyncthingScenarios {
    func testADocumentInASharedFolderOpensFromTheContinuingDevicesOwnCopy() async throws {
        XCTAssertTrue(devices.addressA.hasPrefix("10.78.0.1:"), "A listens on its namespace's link: \(devices.addressA)")
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: notesOnA)
        XCTAssertTrue(syncthing.waitUntilSynced("report.md"), "Syncthing brought report.md to B")
        let (_, onB, onAlpha) = try openOnA(file)
        let onBeta = notesOnB.appendingPathComponent("report.md")
        let restored = try continueOnB(onB, expecting: onBeta)
        XCTAssertNil(restored.userInfo?["BatonDocumentCopiedFrom"], "B's own copy, not a copy over the link")
        XCTAssertTrue(showsPosition(onAlpha, of: onBeta, on: onB), "B shows the same lines: \(onAlpha)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: devices.b.root.appendingPathComponent("Documents").path),
                       "nothing was copied")
        XCTAssertTrue(devices.batondB.log.contains("synced by Syncthing"), devices.batondB.log)
        let doctor = try devices.b.baton(["doctor", "--json"]).json as? [[String: Any]] ?? []
        let check = doctor.first { $0["check"] as? String == "syncthing" }
        XCTAssertEqual(check?["ok"] as? Bool, true, "\(String(describing: check))")
        XCTAssertTrue((check?["detail"] as? String ?? "").contains("shares 1 folder"), "\(String(describing: check))")
    }

    func testWhileSyncIsPausedTheWaitIsShownAndTheDocumentOpensWhenItArrives() async throws {
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: notesOnA)
        XCTAssertTrue(syncthing.waitUntilSynced("report.md"))
        try syncthing.setFolderPausedOnB(true)
        let (onA, onB, _) = try openOnA(file)
        // A's edit reaches A's file, not B's paused copy.
        let window = try XCTUnwrap(onA.windows(titled: "report.md").first)
        try onA.type(" Edited while beta was paused.", into: window)
        XCTAssertTrue(waitUntil { (try String(contentsOf: file, encoding: .utf8)).contains("Edited while beta was paused.") })
        usleep(500_000)
        let onAlpha = try XCTUnwrap(onA.lastPosition())

        let command = try startContinuingOnB()
        let waiting = onB.waitForEvent(timeout: 15) { $0.event == "progress" }
        XCTAssertEqual(waiting?.title, "Waiting for “report.md” to sync: Syncthing is paused here", "the app hears of the wait")
        onB.pid = (waiting?["pid"] as? Int).map(Int32.init)
        XCTAssertFalse(try onB.windows(titled: "Continuing From Another Device").isEmpty, "the app shows the wait")
        try screenshotB("texteditor-waiting-for-sync")
        try syncthing.setFolderPausedOnB(false)
        let onBeta = notesOnB.appendingPathComponent("report.md")
        let restored = try restored(on: onB, after: 0, expecting: onBeta, command: command, timeout: 20)
        XCTAssertNil(restored.userInfo?["BatonDocumentCopiedFrom"])
        XCTAssertTrue(waitUntil { try onB.windows(titled: "Continuing From Another Device", timeout: 0.1).isEmpty },
                      "the wait is no longer shown")
        XCTAssertEqual(try Data(contentsOf: onBeta), try Data(contentsOf: file), "B opened the synced file, with A's edit")
        XCTAssertTrue(showsPosition(onAlpha, of: onBeta, on: onB), "B shows the same lines: \(onAlpha)")
    }
}

/// The person gives up waiting: Cancel in the app's dialog stops batond too, and nothing is
/// opened or copied.
final class TextEditorSyncCancelTests: TextEditorSyncthingScenarios {
    func testCancellingTheWaitStopsTheContinuationEverywhere() async throws {
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: notesOnA)
        XCTAssertTrue(syncthing.waitUntilSynced("report.md"))
        try syncthing.setFolderPausedOnB(true)
        let documentsB = try makeDocumentsFolderOnB()
        let (onA, onB, _) = try openOnA(file)
        let window = try XCTUnwrap(onA.windows(titled: "report.md").first)
        try onA.type(" Not on beta yet.", into: window)
        XCTAssertTrue(waitUntil { (try String(contentsOf: file, encoding: .utf8)).contains("Not on beta yet.") })

        let command = try startContinuingOnB()
        let waiting = try XCTUnwrap(onB.waitForEvent(timeout: 15) { $0.event == "progress" })
        onB.pid = (waiting["pid"] as? Int).map(Int32.init)
        let dialog = try XCTUnwrap(onB.windows(titled: "Continuing From Another Device").first)
        try onB.key("Escape", in: dialog)
        XCTAssertNotNil(onB.waitForEvent { $0.event == "failed" }, "the app's continuation ends")
        let status = try XCTUnwrap(command.waitForExit(timeout: 10), "baton continue ends at once, not at the sync timeout")
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(command.log.contains("cancel"), command.log)
        XCTAssertTrue(devices.batondB.log.contains("gave up the continuation"), devices.batondB.log)
        XCTAssertNil(onB.events().first { $0.event == "restored" }, "nothing was opened")
        XCTAssertFalse(FileManager.default.fileExists(atPath: documentsB.appendingPathComponent("Continued from alpha").path),
                       "nothing was copied")
        XCTAssertTrue(try onB.windows(titled: "Continuing From Another Device", timeout: 0.5).isEmpty)
    }
}

/// The sync does not come in time (B's copy stays paused past a short timeout): the file
/// comes over the link instead.
final class TextEditorSyncTimeoutTests: TextEditorSyncthingScenarios {
    override class var argumentsB: [String] { ["--document-sync-timeout", "3"] }

    func testWhenTheSyncIsTooSlowTheCopyOverTheLinkTakesOver() async throws {
        try devices.pair()
        let file = try TextEditorProcess.writeReport(in: notesOnA)
        XCTAssertTrue(syncthing.waitUntilSynced("report.md"))
        try syncthing.setFolderPausedOnB(true)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("A line B's Syncthing never got.\n".utf8))
        try handle.close()
        let documentsB = try makeDocumentsFolderOnB()
        let (_, onB, _) = try openOnA(file)
        let copy = documentsB.appendingPathComponent("Continued from alpha/report.md")
        let restored = try continueOnB(onB, expecting: copy, timeout: 25)
        XCTAssertEqual(restored.userInfo?["BatonDocumentCopiedFrom"] as? String, "alpha")
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file))
        XCTAssertNotNil(onB.events().first { $0.event == "progress" }, "the wait was shown first")
        XCTAssertTrue(devices.batondB.log.contains("did not sync from alpha within 3 s"), devices.batondB.log)
        XCTAssertNotEqual(try Data(contentsOf: notesOnB.appendingPathComponent("report.md")), try Data(contentsOf: file),
                          "B's paused Syncthing copy was left as it was")
    }
}
