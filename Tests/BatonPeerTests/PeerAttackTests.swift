import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A device that is not paired connects to a real batond with its own certificate and tries
/// what an attacker on the LAN would: it must learn nothing, and the paired device's link
/// must not notice.
@MainActor
final class PeerAttackTests: XCTestCase {
    private var devices: DevicePair!
    private var offerID = ""

    override func setUp() async throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        devices = try DevicePair()
        try devices.pair()
        let app = devices.a.root.appendingPathComponent("origin.trace.jsonl")
        _ = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "secret plans"],
                                name: "origin", environment: ["BATON_TRACE": app.path])
        offerID = try XCTUnwrap(devices.b.waitForActivity(titled: "Note: secret plans")?["id"] as? String,
                                "the paired device lists A's activity")
    }

    override func tearDown() async throws {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        for intruder in intruders { intruder.link.close("test over") }
        _ = await pumpMainLoop(timeout: 0.2) { false }
        devices?.tearDown()
    }

    private var intruders: [Intruder] = []

    /// An attacker's link to A: what it receives, and whether A closed it.
    private final class Intruder {
        let link: PeerLink
        /// The id of the intruder's own certificate.
        let deviceID: String
        var received: [PeerMessage] = []
        var closedBecause: String?

        init(link: PeerLink, deviceID: String) {
            self.link = link
            self.deviceID = deviceID
        }

        var honestHello: PeerMessage { .hello(PeerHello(deviceID: deviceID, name: "mallory", port: 0)) }
    }

    private func intrude() async throws -> Intruder {
        let identity = try DeviceIdentity.generate()
        let tls = try PeerTLS(identity: identity)
        let link = try await Outcome { try await tls.connect(to: self.devices.addressA) }.get()
        let intruder = Intruder(link: link, deviceID: identity.deviceID)
        intruders.append(intruder)
        link.onMessage = { intruder.received.append($0) }
        link.onClose = { intruder.closedBecause = $0 }
        link.start()
        return intruder
    }

    private func assertNothingLeaked(_ intruder: Intruder, file: StaticString = #filePath, line: UInt = #line) {
        for message in intruder.received {
            switch message {
            case .hello(let hello):
                XCTAssertEqual(hello.deviceID, devices.idA, file: file, line: line)
            case .pong, .pairCancel, .unpair:
                break
            default:
                XCTFail("an unpaired device received \(message)", file: file, line: line)
            }
        }
    }

    /// The paired link still stands and A still answers.
    private func assertPairedLinkUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(devices.batondA.isRunning, file: file, line: line)
        XCTAssertEqual(try devices.device(devices.idA, on: devices.b)?["connected"] as? Bool, true, file: file, line: line)
        let listing = try devices.b.activities()
        XCTAssertTrue(listing.contains { $0["id"] as? String == offerID }, file: file, line: line)
    }

    func testAnUnpairedPeerAskingForAPayloadGetsNothingAndIsCut() async throws {
        let intruder = try await intrude()
        intruder.link.send(.hello(PeerHello(deviceID: "0bad", name: "mallory", port: 0)))
        let closed = await pumpMainLoop(timeout: 5) { intruder.closedBecause != nil }
        XCTAssertTrue(closed, "a hello that names another device than the certificate closes the link")
        assertNothingLeaked(intruder)

        let second = try await intrude()
        second.link.send(second.honestHello)
        _ = await pumpMainLoop(timeout: 1) { second.closedBecause != nil }
        XCTAssertNil(second.closedBecause, "an honest hello is answered; the device may ask to pair")
        second.link.send(.fetch(request: 1, activityID: offerID))
        let cut = await pumpMainLoop(timeout: 5) { second.closedBecause != nil }
        XCTAssertTrue(cut, "asking for a payload unpaired closes the link")
        assertNothingLeaked(second)
        XCTAssertTrue(second.received.contains { if case .hello = $0 { true } else { false } })
        XCTAssertFalse(devices.batondA.log.contains("secret plans"), "nothing about the activity was logged")
        try assertPairedLinkUntouched()
    }

    func testAnUnpairedPeerPushingOffersOrImpersonatingIsCut() async throws {
        let intruder = try await intrude()
        intruder.link.send(intruder.honestHello)
        intruder.link.send(.continued(activityID: offerID))
        let cut = await pumpMainLoop(timeout: 5) { intruder.closedBecause != nil }
        XCTAssertTrue(cut)
        XCTAssertEqual(intruder.received.last, .unpair, "told it is not paired here, then cut")
        assertNothingLeaked(intruder)

        let impostor = try await intrude()
        impostor.link.send(.hello(PeerHello(deviceID: devices.idB, name: "beta", port: 0)))
        let refused = await pumpMainLoop(timeout: 5) { impostor.closedBecause != nil }
        XCTAssertTrue(refused, "claiming the paired device's id with another certificate is refused")
        assertNothingLeaked(impostor)
        try assertPairedLinkUntouched()
        let origin = devices.a.root.appendingPathComponent("origin.trace.jsonl")
        XCTAssertFalse(TraceFile.events(at: origin).contains { $0["event"] as? String == "was-continued" },
                       "an unpaired device cannot tell the app its activity was continued")
    }

    func testGarbageAndTruncatedFramesCloseOnlyThatLink() async throws {
        let garbage = try await intrude()
        garbage.link.send(frame: Array("\u{16}\u{03}\u{01} definitely not a frame".utf8))
        let closed = await pumpMainLoop(timeout: 5) { garbage.closedBecause != nil }
        XCTAssertTrue(closed)
        assertNothingLeaked(garbage)

        let truncated = try await intrude()
        truncated.link.send(truncated.honestHello)
        // A header that promises 1000 bytes, then 10 of them, then the link goes.
        truncated.link.send(frame: [0x42, 0x54, 1, 7, 0, 0, 0x03, 0xe8] + Array(repeating: 0, count: 10))
        _ = await pumpMainLoop(timeout: 0.5) { false }
        truncated.link.close("leaving")
        assertNothingLeaked(truncated)

        let oversized = try await intrude()
        oversized.link.send(frame: [0x42, 0x54, 1, 1, 0, 0, 0x10, 0x01])
        let refused = await pumpMainLoop(timeout: 5) { oversized.closedBecause != nil }
        XCTAssertTrue(refused, "a frame over the size limit closes the link before its body")

        try assertPairedLinkUntouched()
        XCTAssertEqual(try devices.a.baton(["status"]).status, 0)
    }
}
