@testable import batond
import BatonBus
import Foundation
import XCTest

/// Which running app continues an activity (the most recently active, then the first
/// registered, never by bus name), and the limits on registrations.
@MainActor
final class ClaimantOrderTests: XCTestCase {
    private let type = "org.example.note"

    private func register(_ registry: AppRegistry, _ busName: String, pid: Int32, verified: Bool = true,
                          appID: String = "org.example.Notes") throws {
        try registry.register(busName: busName, appID: appID, teamID: "org.example", activityTypes: [type],
                              pid: pid, isVerified: verified)
    }

    private func publish(_ registry: AppRegistry, _ busName: String) throws {
        try registry.publish(busName: busName, appActivityID: "a-\(busName)",
                             summary: ActivitySummary(activityType: type, title: busName))
    }

    private func order(_ registry: AppRegistry, verifiedOnly: Bool = false) -> [String] {
        registry.claimants(of: type, teamID: "org.example", excluding: nil, verifiedOnly: verifiedOnly).map(\.busName)
    }

    func testTheMostRecentlyActiveGoesFirstThenTheFirstRegistered() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.5", pid: 10)
        try register(registry, ":1.1221", pid: 11)
        try register(registry, ":1.30", pid: 12)
        XCTAssertEqual(order(registry), [":1.5", ":1.1221", ":1.30"], "none active yet: registration order")

        try publish(registry, ":1.30")
        usleep(2000)
        try publish(registry, ":1.5")
        XCTAssertEqual(order(registry), [":1.5", ":1.30", ":1.1221"], "active ones first, the latest first")
        usleep(2000)
        try publish(registry, ":1.1221")
        XCTAssertEqual(order(registry).first, ":1.1221")

        try register(registry, ":1.5", pid: 10)
        XCTAssertEqual(order(registry), [":1.1221", ":1.5", ":1.30"], "registering again keeps its activity and rank")
        XCTAssertEqual(registry.claimants(of: type, teamID: "org.example", excluding: ":1.1221", verifiedOnly: false).first?.busName,
                       ":1.5", "never the origin")
    }

    func testUnverifiedAppsAreLeftOutWhenOnlyVerifiedOnesMay() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.8", pid: 20, verified: true, appID: "org.example.Mail")
        try register(registry, ":1.9", pid: 21, verified: false, appID: "org.example.Mail")
        try publish(registry, ":1.9")
        XCTAssertEqual(order(registry), [":1.9", ":1.8"])
        XCTAssertEqual(order(registry, verifiedOnly: true), [":1.8"])
    }

    func testOneProcessHasAtMostEightRegistrations() async throws {
        let registry = AppRegistry()
        for index in 0..<AppRegistry.maximumRegistrationsPerProcess {
            try register(registry, ":1.\(index)", pid: 77)
        }
        XCTAssertThrowsError(try register(registry, ":1.100", pid: 77)) { error in
            XCTAssertEqual((error as? ServiceError)?.busName, "org.freedesktop.DBus.Error.LimitsExceeded")
            XCTAssertTrue("\(error)".contains("process 77 already has 8 registrations"), "\(error)")
        }
        XCTAssertNil(registry.apps[":1.100"], "a refused registration changes nothing")
        XCTAssertNoThrow(try register(registry, ":1.0", pid: 77), "registering again is not one more")
        XCTAssertNoThrow(try register(registry, ":1.101", pid: 78))
    }

    func testUnverifiedAppsCannotKeepVerifiedOnesOut() async throws {
        let registry = AppRegistry()
        for index in 0..<AppRegistry.maximumUnverifiedApps {
            try register(registry, ":1.\(index)", pid: Int32(1000 + index), verified: false)
        }
        XCTAssertThrowsError(try register(registry, ":1.500", pid: 5000, verified: false)) { error in
            XCTAssertTrue("\(error)".contains("too many unverified apps"), "\(error)")
        }
        for index in 0..<AppRegistry.maximumApps {
            try register(registry, ":2.\(index)", pid: Int32(10_000 + index), verified: true)
        }
        XCTAssertEqual(registry.apps.count, AppRegistry.maximumUnverifiedApps + AppRegistry.maximumApps)
        XCTAssertThrowsError(try register(registry, ":2.9999", pid: 99_999, verified: true)) { error in
            XCTAssertTrue("\(error)".contains("too many registered apps"), "\(error)")
        }
    }
}
