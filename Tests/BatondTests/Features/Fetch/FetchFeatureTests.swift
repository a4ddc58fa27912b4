@testable import batond
import Baton
import BatonBus
import BatonPeer
import ServiceFixtures
import XCTest

/// Fetches over an in-process link (``InProcessNetwork``): a paired device's fetch is answered
/// with the delegate's payload, and this device's fetch takes the device's answer.
@MainActor
final class FetchFeatureTests: InProcessNetworkTestCase {
    override func makeFixture() throws -> InProcessNetwork {
        try InProcessNetwork(fetchTimeout: 1)
    }

    private var fetch: FetchFeature { fixture.network.features.fetch }

    private func fetchRequest(_ message: PeerMessage) -> (request: UInt32, activityID: String)? {
        if case .fetch(let request, let activityID) = message { (request, activityID) } else { nil }
    }

    func testAFetchIsAnsweredWithThePayloadAndOnlyAFetchedActivityMayBeReportedContinued() async throws {
        fixture.delegate.payloads["a1"] = .success(FetchedPayload(bytes: [1, 2, 3], document: nil))
        let phone = try await fixture.link()
        phone.send(.continued(activityID: "a1"))
        phone.send(.fetch(request: 9, activityID: "a1"))
        let payload = await phone.first { message -> (UInt32, [UInt8])? in
            if case .payload(let request, let bytes, _, _) = message { (request, bytes) } else { nil }
        }
        XCTAssertEqual(payload?.0, 9)
        XCTAssertEqual(payload?.1, [1, 2, 3])
        XCTAssertEqual(fixture.delegate.payloadRequests.map(\.activityID), ["a1"])
        XCTAssertEqual(fixture.delegate.payloadRequests.map(\.deviceID), [phone.deviceID])
        XCTAssertTrue(fixture.delegate.continued.isEmpty, "reported continued before it was fetched: ignored")

        phone.send(.continued(activityID: "a1"))
        let reported = await pumpMainLoop(timeout: 5) { !self.fixture.delegate.continued.isEmpty }
        XCTAssertTrue(reported)
        XCTAssertEqual(fixture.delegate.continued.first?.activityID, "a1")
        XCTAssertFalse(fetch.hasFetched("a1", by: phone.deviceID), "reported once")
    }

    func testTheOriginsErrorIsSentBack() async throws {
        fixture.delegate.payloads["a1"] = .failure(.invalidUserInfo("too deep"))
        let phone = try await fixture.link()
        phone.send(.fetch(request: 4, activityID: "a1"))
        let failure = await phone.first { message -> (UInt32, UserActivityError)? in
            if case .failure(let request, let error) = message { (request, error) } else { nil }
        }
        XCTAssertEqual(failure?.0, 4)
        XCTAssertEqual(failure?.1, .invalidUserInfo("too deep"))
        XCTAssertFalse(fetch.hasFetched("a1", by: phone.deviceID))
    }

    func testAFetchOfTheDeviceTakesItsPayload() async throws {
        let phone = try await fixture.link()
        let fetched = Outcome { try await self.fetch.fetch("b1", from: phone.deviceID) }
        let request = await phone.first(fetchRequest)
        let asked = try XCTUnwrap(request, "the device is asked")
        XCTAssertEqual(asked.activityID, "b1")
        XCTAssertTrue(fetch.holdsState(for: phone.deviceID))
        phone.send(.payload(request: asked.request, bytes: [7, 8], document: nil))
        let payload = try await fetched.get()
        XCTAssertEqual(payload.bytes, [7, 8])
        XCTAssertFalse(fetch.holdsState(for: phone.deviceID))
    }

    /// Why the origin withholds the document its activity names travels with the payload,
    /// both ways: what this device's fetch answers, and what its own fetch takes.
    func testWhyADocumentIsWithheldTravelsWithThePayload() async throws {
        fixture.delegate.payloads["a1"] = .success(FetchedPayload(bytes: [1], withheld: .undeclaredType("text/plain")))
        let phone = try await fixture.link()
        phone.send(.fetch(request: 5, activityID: "a1"))
        let answered = await phone.first { message -> PeerDocumentWithheld?? in
            if case .payload(5, _, nil, let withheld) = message { withheld } else { nil }
        }
        XCTAssertEqual(answered, .some(.undeclaredType("text/plain")), "the device is told why")

        let fetched = Outcome { try await self.fetch.fetch("b1", from: phone.deviceID) }
        let request = await phone.first(fetchRequest)
        let asked = try XCTUnwrap(request, "the device is asked")
        phone.send(.payload(request: asked.request, bytes: [7], withheld: .tooLarge))
        let payload = try await fetched.get()
        XCTAssertNil(payload.document)
        XCTAssertEqual(payload.withheld, .tooLarge)
    }

    func testAFetchFailsWhenTheLinkCloses() async throws {
        let phone = try await fixture.link()
        let fetched = Outcome { try await self.fetch.fetch("b1", from: phone.deviceID) }
        _ = await phone.first(fetchRequest)
        phone.link.close("gone")
        do {
            _ = try await fetched.get()
            XCTFail("the fetch fails")
        } catch ServiceError.activity(.connectionUnavailable) {
        }
    }

    func testAFetchNobodyAnswersTimesOut() async throws {
        let phone = try await fixture.link()
        let fetched = Outcome { try await self.fetch.fetch("b1", from: phone.deviceID) }
        _ = await phone.first(fetchRequest)
        do {
            _ = try await fetched.get()
            XCTFail("the fetch times out")
        } catch ServiceError.activity(.remoteApplicationTimedOut) {
        }
        XCTAssertTrue(fixture.network.isLinked(phone.deviceID), "the device answered the ping: its link stays")
    }

    func testAFetchOfADeviceNotLinkedFailsAtOnce() async throws {
        do {
            _ = try await fetch.fetch("b1", from: "0123456789abcdef0123456789abcdef")
            XCTFail("no link, no fetch")
        } catch ServiceError.activity(.connectionUnavailable) {
        }
    }
}
