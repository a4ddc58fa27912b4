@testable import batond
import BatonBus
import BatonPeer
import ServiceFixtures
import XCTest

/// Offers over an in-process link (``InProcessNetwork``): this device's offers go to a paired
/// device when it links and after a change, and a paired device's offers reach the delegate.
@MainActor
final class OfferFeatureTests: InProcessNetworkTestCase {

    private func offer(_ id: String, title: String) -> PeerOffer {
        PeerOffer(id: id, summary: ActivitySummary(activityType: "org.example.note", title: title),
                  appID: "org.example.Notes", teamID: "org.example")
    }

    private func offers(_ message: PeerMessage) -> [PeerOffer]? {
        if case .offers(let offers) = message { offers } else { nil }
    }

    func testALinkedPairedDeviceGetsThisDevicesOffersAtOnce() async throws {
        fixture.delegate.offers = [offer("a1", title: "Lunch")]
        let phone = try await fixture.link()
        let sent = await phone.first(offers)
        XCTAssertEqual(sent, [offer("a1", title: "Lunch")])
    }

    func testAChangeIsPushedOnceAfterTheDebounceAndAnUnchangedListNotAgain() async throws {
        let phone = try await fixture.link()
        _ = await phone.first(offers)
        let start = phone.received.count
        fixture.delegate.offers = [offer("a2", title: "Dinner")]
        fixture.network.features.offers.changed()
        fixture.network.features.offers.changed()
        let pushed = await phone.first(after: start, offers)
        XCTAssertEqual(pushed, [offer("a2", title: "Dinner")])

        fixture.network.features.offers.changed()
        _ = await pumpMainLoop(timeout: OfferFeature.debounce * 20) { false }
        XCTAssertEqual(phone.received.dropFirst(start).compactMap(offers).count, 1,
                       "one push for the burst, none for a list the device has")
    }

    func testAPairedDevicesOffersReachTheDelegate() async throws {
        let phone = try await fixture.link()
        phone.send(.offers([offer("b1", title: "Report")]))
        let arrived = await pumpMainLoop(timeout: 5) { !self.fixture.delegate.offered.isEmpty }
        XCTAssertTrue(arrived)
        XCTAssertEqual(fixture.delegate.offered.first?.deviceID, phone.deviceID)
        XCTAssertEqual(fixture.delegate.offered.first?.offers, [offer("b1", title: "Report")])
    }

    func testAStrangerGetsNoOffers() async throws {
        fixture.delegate.offers = [offer("a1", title: "Lunch")]
        let stranger = try await fixture.link(paired: false)
        _ = await pumpMainLoop(timeout: OfferFeature.debounce * 20) { false }
        XCTAssertNil(stranger.received.lazy.compactMap(offers).first)
    }
}
