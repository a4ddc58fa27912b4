@testable import batond
import BatonBus
import XCTest

/// The one settings gate: which devices and apps take part, and which offers are shown and
/// announced.
final class HandoffPolicyTests: XCTestCase {
    private func offer(from deviceID: String?, appID: String? = "org.example.Notes") -> Offer {
        Offer(id: "o1", summary: ActivitySummary(activityType: "org.example.note", title: "n"), appID: appID,
              teamID: "org.example", device: deviceID ?? "this device",
              origin: deviceID.map { .peer(deviceID: $0) } ?? .held([]))
    }

    func testEverythingTakesPartByDefault() {
        let policy = HandoffPolicy(HandoffSettings())
        XCTAssertTrue(policy.allows(device: "d1"))
        XCTAssertTrue(policy.allows(device: nil), "this device")
        XCTAssertTrue(policy.allows(app: "org.example.Notes", to: "d1"))
        XCTAssertTrue(policy.allows(offer(from: "d1")))
        XCTAssertTrue(policy.notifies(offer(from: "d1")))
        XCTAssertTrue(policy.notifies(offer(from: nil)))
    }

    func testHandoffOffStopsEveryDeviceAndApp() {
        var settings = HandoffSettings()
        settings.handoff = false
        let policy = HandoffPolicy(settings)
        XCTAssertFalse(policy.allows(device: "d1"))
        XCTAssertFalse(policy.allows(device: nil), "nor an offer added here")
        XCTAssertFalse(policy.allows(app: "org.example.Notes", to: "d1"))
        XCTAssertFalse(policy.allows(offer(from: "d1")))
        XCTAssertFalse(policy.allows(offer(from: nil)))
        XCTAssertFalse(policy.notifies(offer(from: "d1")))
    }

    func testABlockedDeviceIsLeftOutAndTheOthersStay() {
        var settings = HandoffSettings()
        settings.blockedDevices = ["d1"]
        let policy = HandoffPolicy(settings)
        XCTAssertFalse(policy.allows(device: "d1"))
        XCTAssertFalse(policy.allows(app: "org.example.Notes", to: "d1"))
        XCTAssertFalse(policy.allows(offer(from: "d1")))
        XCTAssertFalse(policy.notifies(offer(from: "d1")))
        XCTAssertTrue(policy.allows(device: "d2"))
        XCTAssertTrue(policy.allows(offer(from: "d2")))
        XCTAssertTrue(policy.allows(offer(from: nil)), "an offer added here comes from no paired device")
    }

    func testABlockedAppIsNotOfferedOutButOffersFromOtherDevicesStay() {
        var settings = HandoffSettings()
        settings.blockedApps = ["org.example.Notes"]
        let policy = HandoffPolicy(settings)
        XCTAssertFalse(policy.allows(app: "org.example.Notes", to: "d1"))
        XCTAssertTrue(policy.allows(app: "org.example.Other", to: "d1"))
        XCTAssertTrue(policy.allows(device: "d1"), "its documents still go")
        XCTAssertTrue(policy.allows(offer(from: "d1", appID: "org.example.Notes")), "another device's offer is its own")
        XCTAssertTrue(policy.notifies(offer(from: "d1", appID: "org.example.Notes")))
    }

    func testQuietListsOffersWithoutNotifications() {
        var settings = HandoffSettings()
        settings.notifications = .quiet
        let policy = HandoffPolicy(settings)
        XCTAssertTrue(policy.allows(offer(from: "d1")))
        XCTAssertFalse(policy.notifies(offer(from: "d1")))
        XCTAssertFalse(policy.notifies(offer(from: nil)))
        XCTAssertTrue(policy.allows(app: "org.example.Notes", to: "d1"), "quiet changes no offer made")
    }
}
