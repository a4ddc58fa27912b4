@testable import batond
import BatonBus
import Foundation
import ServiceFixtures
import XCTest

/// Expiration on batond's own clock: a local current activity that expires is a change (so
/// paired devices are sent offers without it), and an offer updated to an expired one goes.
@MainActor
final class ExpiryTests: XCTestCase {
    func testALocalActivityThatExpiresIsAChange() async throws {
        let registry = AppRegistry()
        var changes = 0
        registry.onChange = { changes += 1 }
        try registry.register(busName: ":1.7", appID: "org.example.Notes", teamID: "org.example",
                              activityTypes: ["org.example.note"], pid: 4242, identity: .unverified("no desktop entry"))
        let summary = ActivitySummary(activityType: "org.example.note", title: "soon gone",
                                      expirationDate: Date().addingTimeInterval(0.3))
        try registry.publish(busName: ":1.7", appActivityID: "a1", summary: summary)
        XCTAssertEqual(changes, 1)
        XCTAssertEqual(registry.offerable.count, 1)

        let expired = await pumpMainLoop(timeout: 3) { changes == 2 }
        XCTAssertTrue(expired, "the expiry is told as a change, with nothing else happening")
        XCTAssertTrue(registry.offerable.isEmpty)
        _ = await pumpMainLoop(timeout: 0.5) { false }
        XCTAssertEqual(changes, 2, "told once, not again and again")
    }

    func testAnOfferUpdatedToAnExpiredOneIsWithdrawn() {
        let offers = OfferList()
        func offer(expiring date: Date?) -> Offer {
            Offer(id: "abc123", summary: ActivitySummary(activityType: "org.example.note", title: "note",
                                                         expirationDate: date),
                  appID: "org.example.Notes", teamID: "org.example", device: "laptop", origin: .peer(deviceID: "d1"))
        }
        let first = offers.replace(from: "d1", with: [offer(expiring: Date().addingTimeInterval(600))])
        XCTAssertEqual(first.added.map(\.id), ["abc123"])
        let second = offers.replace(from: "d1", with: [offer(expiring: Date().addingTimeInterval(-1))])
        XCTAssertEqual(second.withdrawn.map(\.id), ["abc123"], "expired on this device's clock: withdrawn")
        XCTAssertTrue(offers.current.isEmpty)
        XCTAssertTrue(offers.offers.isEmpty)
    }
}
