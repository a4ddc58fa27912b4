@testable import batond
import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// Continuation streams between two apps on one machine, through batond (which hands each
/// app one end of a socket pair and is out of the data path), and their faults: each gives
/// both ends an end or an error in time, the continuation still has exactly one outcome, and
/// batond keeps no descriptor.
final class ContinuationStreamServiceTests: ServiceTestCase {
    /// batond's open sockets (its bus connection, listener, and any stream end it kept).
    private func batondSockets() -> [String] {
        let folder = "/proc/\(batond.pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")
        }.filter { $0.hasPrefix("socket:") }.sorted()
    }

    /// The origin answering streams as `mode` says, the target asking with `request`, and
    /// the target continuing the origin's activity.
    private func continueWithStream(mode: String, request: [String] = ["--stream-request", "attachments, please"],
                                    originStreams: Bool = true) throws -> (origin: NoteAppProcess, target: NoteAppProcess) {
        let origin = try startNoteApp("origin", text: "draft", extra: originStreams ? ["--streams", mode] : [])
        let target = try startNoteApp("target", text: "target",
                                      extra: ["--app-id", "org.baton.Target"] + request)
        let id = try XCTUnwrap(activities().first { $0["title"] as? String == "Note: draft" }?["id"] as? String)
        let result = try session.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertNotNil(target.waitForEvent("restored"))
        return (origin, target)
    }

    func testARequestAndItsAnswerTravelBetweenTwoAppsOnOneMachine() throws {
        let before = batondSockets()
        let (origin, target) = try continueWithStream(mode: "echo")
        XCTAssertTrue(waitUntil(timeout: 10) { target.child.log.contains("note: stream answer") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream answer 25 bytes, patterned false: echo: attachments, please"),
                      target.child.log)
        XCTAssertTrue(origin.child.log.contains("note: stream answered"), origin.child.log)
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
        XCTAssertTrue(batond.log.contains("continuation stream opened from org.baton.Target to org.baton.TestApp"))
        // batond lets go of its copy of the stream's descriptor once it is passed on: wait a
        // moment for that, as a leak would still be there after it.
        XCTAssertTrue(waitUntil(timeout: 5) { self.batondSockets() == before },
                      "batond holds no end of the stream: \(batondSockets()) against \(before)")
    }

    func testMegabytesArriveWhole() throws {
        let (_, target) = try continueWithStream(mode: "bytes:\(8 << 20)")
        XCTAssertTrue(waitUntil(timeout: 20) { target.child.log.contains("note: stream answer") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream answer \(8 << 20) bytes, patterned true"), target.child.log)
    }

    func testWithoutTheOriginsFlagNoStreamOpensAndTheContinuationStillSucceeds() throws {
        let (_, target) = try continueWithStream(mode: "echo", originStreams: false)
        XCTAssertTrue(waitUntil(timeout: 10) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4608"), target.child.log)
        XCTAssertTrue(target.child.log.contains("supportsContinuationStreams"), target.child.log)
        XCTAssertEqual(target.outcomes.count, 1)
    }

    /// An origin whose stream delegate was released (`UserActivity.delegate` is weak): the
    /// continuing app hears that the origin does not answer streams (4608), not that it
    /// could not be reached, and the origin's log says why.
    func testAReleasedStreamDelegateIsSaidOnBothSides() throws {
        let (origin, target) = try continueWithStream(mode: "released")
        XCTAssertTrue(waitUntil(timeout: 10) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4608"), target.child.log)
        XCTAssertTrue(target.child.log.contains("the origin does not answer streams"), target.child.log)
        XCTAssertTrue(origin.child.log.contains("has no delegate to take it"), origin.child.log)
        XCTAssertEqual(target.outcomes.count, 1, "exactly one outcome: \(target.eventNames)")
    }

    func testAnOriginThatClosesGivesTheEndOfTheStream() throws {
        let (_, target) = try continueWithStream(mode: "close")
        XCTAssertTrue(waitUntil(timeout: 10) {
            target.child.log.contains("stream answer 0 bytes") || target.child.log.contains("stream failed 4609")
        }, "an end or an error, at once: \(target.child.log)")
    }

    func testAnOriginThatQuitsGivesAnEndOrAnError() throws {
        let (_, target) = try continueWithStream(mode: "quit")
        XCTAssertTrue(waitUntil(timeout: 10) {
            target.child.log.contains("stream answer 0 bytes") || target.child.log.contains("stream failed 4609")
        }, target.child.log)
        XCTAssertEqual(target.outcomes.count, 1)
    }

    func testAnOriginThatNeverReadsTimesTheWriterOut() throws {
        // 16 MiB is over the socket pair's buffers (1 MiB asked on each end, doubled by the
        // kernel): the writer waits, then gives up after its timeout.
        let (_, target) = try continueWithStream(mode: "hang", request: ["--stream-request-bytes", "\(16 << 20)", "--stream-timeout", "3"])
        XCTAssertTrue(waitUntil(timeout: 15) { target.child.log.contains("note: stream failed") }, target.child.log)
        XCTAssertTrue(target.child.log.contains("stream failed 4610"), target.child.log)
    }

    func testAStreamOutsideAContinuationIsRefused() throws {
        let result = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"),
                                     ["call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
                                      "--method", "org.baton.Daemon1.OpenContinuationStream", "no-such-token"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.errorOutput.contains("streams open only inside continue"), result.errorOutput)
    }
}

/// The credit of every stream a link may carry fits in half of the link's queue, so streams
/// alone never overflow it (which closes the link).
@MainActor
final class StreamWindowTests: XCTestCase {
    func testTheStreamsOfALinkFitInItsQueue() async {
        XCTAssertLessThanOrEqual(StreamRelay.window * StreamFeature.maximumStreamsPerDevice, PeerLink.maximumQueuedBytes / 2)
        XCTAssertLessThanOrEqual(PeerMessage.maximumStreamChunk + 4, PeerFrame.maximumBodySize)
    }
}
