@testable import batond
import BatonPeer
import ServiceFixtures
import XCTest

/// Reach-back over an in-process link (``InProcessNetwork``): a paired device's question is
/// answered, and this device's question takes the device's answer.
@MainActor
final class ReachBackFeatureTests: InProcessNetworkTestCase {

    private var reachBack: ReachBackFeature { fixture.network.features.reachBack }

    func testADeviceThatAnnouncedNoPortIsToldSo() async throws {
        let phone = try await fixture.link()
        phone.send(.reachBack(request: 7))
        let answer = await phone.first { message -> (UInt32, String)? in
            if case .reachBackResult(let request, let problem) = message { (request, problem) } else { nil }
        }
        XCTAssertEqual(answer?.0, 7)
        XCTAssertEqual(answer?.1, "it announced no port to dial")
    }

    func testALinkTheDeviceDialedNeedsNoQuestion() async throws {
        let phone = try await fixture.link(dialed: false)
        let start = phone.received.count
        let answer = await reachBack.check(phone.deviceID)
        XCTAssertEqual(answer, .reached("it dialed this device for the current link"))
        XCTAssertFalse(phone.received.dropFirst(start).contains { if case .reachBack = $0 { true } else { false } })
    }

    func testACheckAsksTheDeviceAndKeepsItsAnswerForTheLink() async throws {
        let phone = try await fixture.link(dialed: true)
        let check = Outcome { await self.reachBack.check(phone.deviceID) }
        let request = await phone.first { if case .reachBack(let request) = $0 { request } else { nil } }
        let asked = try XCTUnwrap(request, "the device is asked")
        phone.send(.reachBackResult(request: asked, problem: ""))
        let answer = try await check.get()
        XCTAssertEqual(answer, .reached("it dialed this device back when asked"))

        let start = phone.received.count
        let again = await reachBack.check(phone.deviceID)
        XCTAssertEqual(again, .reached("it dialed this device back when asked"))
        XCTAssertFalse(phone.received.dropFirst(start).contains { if case .reachBack = $0 { true } else { false } },
                       "the answer is kept for the same link")
        XCTAssertFalse(reachBack.holdsState(for: phone.deviceID))
    }

    func testTheDevicesProblemIsTheAnswer() async throws {
        let phone = try await fixture.link(dialed: true)
        let check = Outcome { await self.reachBack.check(phone.deviceID) }
        let request = await phone.first { if case .reachBack(let request) = $0 { request } else { nil } }
        phone.send(.reachBackResult(request: try XCTUnwrap(request), problem: "no route to host"))
        let answer = try await check.get()
        XCTAssertEqual(answer, .unreachable("no route to host"))
    }

    func testACheckWaitingWhenTheLinkClosesEndsUnknown() async throws {
        let phone = try await fixture.link(dialed: true)
        let check = Outcome { await self.reachBack.check(phone.deviceID) }
        _ = await phone.first { if case .reachBack(let request) = $0 { request } else { nil } }
        XCTAssertTrue(reachBack.holdsState(for: phone.deviceID), "the check waits")
        phone.link.close("gone")
        guard case .unknown = try await check.get() else { return XCTFail("a lost link is no answer") }
        XCTAssertFalse(reachBack.holdsState(for: phone.deviceID))
    }

    func testADeviceTooOldToBeAskedIsUnknown() async throws {
        let phone = try await fixture.link(dialed: true, capabilities: [])
        let answer = await reachBack.check(phone.deviceID)
        XCTAssertEqual(answer, .unknown("its batond is too old to be asked whether it can dial this device"))
    }
}
