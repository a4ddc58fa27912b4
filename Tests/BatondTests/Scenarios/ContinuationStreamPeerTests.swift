import Foundation
import ServiceFixtures
import XCTest

/// Continuation streams between apps on two devices: each app has a socket from its batond,
/// and the batonds relay the bytes over their pinned link, with credit so that a stream
/// never crowds out the link. Faults end both sides in time.
final class ContinuationStreamPeerTests: PairedDevicePairTestCase {
    /// A's note answers streams as `mode` says; B's app continues it, asking over a stream.
    private func continueAcross(mode: String, request: [String] = ["--stream-request", "attachments, please"])
        throws -> (origin: NoteAppProcess, target: NoteAppProcess) {
        let origin = try devices.a.startInstalledNote("origin", text: "draft", extra: ["--streams", mode])
        let target = try devices.b.startInstalledNote("target", text: "idle",
                                   extra: ["--app-id", "org.baton.Target"] + request)
        let id = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: draft", timeout: 15)?["id"] as? String)
        let result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertNotNil(target.waitForEvent("restored"))
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
        return (origin, target)
    }

    /// What each batond holds: its open descriptors and its main context's GLib sources.
    private func held() throws -> [[Int]] {
        try [devices.a, devices.b].map { session in
            let status = try DevicePair.status(of: session)
            return [status["open-fds"] as? Int ?? -1, status["glib-sources"] as? Int ?? -1]
        }
    }

    func testARequestAndItsAnswerTravelBetweenTwoDevices() throws {
        // A first continuation, without a stream, warms what batond makes once (its file
        // monitors, the launcher's state), so that only what the stream holds is counted.
        let warm = try devices.a.startInstalledNote("warm", text: "warm", extra: [])
        _ = try devices.b.startInstalledNote("warm-target", text: "warm target", extra: ["--app-id", "org.baton.Target"])
        let warmID = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: warm", timeout: 15)?["id"] as? String)
        XCTAssertEqual(try devices.b.baton(["continue", warmID]).status, 0)
        warm.child.stop()
        Thread.sleep(forTimeInterval: 0.5)
        let before = try held()
        let (origin, target) = try continueAcross(mode: "echo")
        XCTAssertTrue(waitUntil(timeout: 10) { target.child.log.contains("note: stream answer") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream answer 25 bytes, patterned false: echo: attachments, please"),
                      target.child.log)
        XCTAssertTrue(origin.child.log.contains("note: stream answered"), origin.child.log)
        XCTAssertTrue(devices.batondB.log.contains("continuation stream"), devices.batondB.log)
        for session in [devices.a, devices.b] {
            XCTAssertTrue(waitUntil(timeout: 5) { try DevicePair.status(of: session)["streams"] as? Int == 0 },
                          "the relays ended with the stream: \((try? DevicePair.status(of: session)) ?? [:])")
        }
        // Settled first: an app's entry written moments ago has batond look at the entries
        // again half a second later (`DomainVerifier`), a timer of its own until then.
        _ = waitUntil(timeout: 3) { try self.held() == before }
        XCTAssertEqual(try held(), before, "no descriptor or GLib source left behind on either batond")
    }

    func testFiftyMegabytesArriveWhole() throws {
        let size = 50 << 20
        let (_, target) = try continueAcross(mode: "bytes:\(size)")
        XCTAssertTrue(waitUntil(timeout: 60) { target.child.log.contains("note: stream answer") || target.child.log.contains("stream failed") },
                      target.child.log)
        XCTAssertTrue(target.child.log.contains("stream answer \(size) bytes, patterned true"), target.child.log)
    }

    func testTheLinkDroppingEndsTheStreamOnBothSides() throws {
        let (origin, target) = try continueAcross(mode: "hang", request: ["--stream-request-bytes", "\(Self.overBuffers)"])
        XCTAssertTrue(waitUntil(timeout: 10) { origin.child.log.contains("note: stream received") }, origin.child.log)
        devices.batondA.stop()
        XCTAssertTrue(waitUntil(timeout: 15) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4609"), target.child.log)
        XCTAssertTrue(waitUntil(timeout: 5) { try DevicePair.status(of: self.devices.b)["streams"] as? Int == 0 })
    }

    func testAnOriginThatNeverReadsTimesTheWriterOut() throws {
        let (origin, target) = try continueAcross(mode: "hang", request: ["--stream-request-bytes", "\(Self.overBuffers)",
                                                                          "--stream-timeout", "3"])
        XCTAssertTrue(waitUntil(timeout: 10) { origin.child.log.contains("note: stream received") }, origin.child.log)
        XCTAssertTrue(waitUntil(timeout: 15) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4610"), target.child.log)
        XCTAssertEqual(target.outcomes.count, 1, "the continuation itself had its one outcome")
    }

    /// More than the sockets and the credit window between the two apps hold: 1 MiB asked
    /// for each socket end (doubled by the kernel) on both devices, 2 MiB of credit.
    static let overBuffers = 32 << 20

    func testAnOriginThatQuitsEndsTheStream() throws {
        let (_, target) = try continueAcross(mode: "quit")
        XCTAssertTrue(waitUntil(timeout: 10) {
            target.child.log.contains("stream answer 0 bytes") || target.child.log.contains("stream failed 4609")
        }, target.child.log)
    }

    /// The origin's stream delegate was released: B's app hears 4608, the origin does not
    /// answer streams, not that A could not be reached; A's app logs why.
    func testAReleasedStreamDelegateIsSaidOnBothDevices() throws {
        let (origin, target) = try continueAcross(mode: "released")
        XCTAssertTrue(waitUntil(timeout: 10) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4608"), target.child.log)
        XCTAssertTrue(target.child.log.contains("the origin does not answer streams"), target.child.log)
        XCTAssertTrue(origin.child.log.contains("has no delegate to take it"), origin.child.log)
    }

    func testAnOriginWithoutTheFlagRefusesTheStream() throws {
        let origin = try devices.a.startInstalledNote("origin", text: "draft", extra: [])
        let target = try devices.b.startInstalledNote("target", text: "idle",
                                   extra: ["--app-id", "org.baton.Target", "--stream-request", "hello"])
        let id = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: draft", timeout: 15)?["id"] as? String)
        XCTAssertEqual(try devices.b.baton(["continue", id]).status, 0)
        XCTAssertTrue(waitUntil(timeout: 10) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4608"), target.child.log)
        XCTAssertFalse(origin.child.log.contains("stream received"))
    }
}
