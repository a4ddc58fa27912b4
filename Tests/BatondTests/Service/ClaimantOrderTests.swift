@testable import batond
import BatonBus
import Foundation
import XCTest

/// Which running app continues an activity (one verified for its type before any other; of
/// the origin's app id, then the most recently active, then the first registered, never by
/// bus name), what a verified app is verified for, and the limits on registrations.
@MainActor
final class ClaimantOrderTests: XCTestCase {
    private let type = "org.example.note"

    /// A verified app whose entry declares `claims` (the test's type for `org.example` unless given).
    private func verified(declaring claims: DeclaredClaims? = DeclaredClaims(teamID: "org.example",
                                                                          activityTypes: "org.example.note;")) -> AppIdentity {
        .verified(evidence: "/x/app.desktop", declaring: claims)
    }

    private func register(_ registry: AppRegistry, _ busName: String, pid: Int32, verified isVerified: Bool = true,
                          appID: String = "org.example.Notes") throws {
        try registry.register(busName: busName, appID: appID, teamID: "org.example", activityTypes: [type],
                              pid: pid, identity: isVerified ? verified() : .unverified("no desktop entry"))
    }

    private func publish(_ registry: AppRegistry, _ busName: String) throws {
        try registry.publish(busName: busName, appActivityID: "a-\(busName)",
                             summary: ActivitySummary(activityType: type, title: busName))
    }

    private func order(_ registry: AppRegistry, originAppID: String? = nil) -> (verified: [String], unverified: [String]) {
        let claimants = registry.claimants(of: type, teamID: "org.example", excluding: nil, originAppID: originAppID)
        return (claimants.verified.map(\.busName), claimants.unverified.map(\.busName))
    }

    func testTheMostRecentlyActiveGoesFirstThenTheFirstRegistered() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.5", pid: 10)
        try register(registry, ":1.1221", pid: 11)
        try register(registry, ":1.30", pid: 12)
        XCTAssertEqual(order(registry).verified, [":1.5", ":1.1221", ":1.30"], "none active yet: registration order")

        try publish(registry, ":1.30")
        usleep(2000)
        try publish(registry, ":1.5")
        XCTAssertEqual(order(registry).verified, [":1.5", ":1.30", ":1.1221"], "active ones first, the latest first")
        usleep(2000)
        try publish(registry, ":1.1221")
        XCTAssertEqual(order(registry).verified.first, ":1.1221")

        try register(registry, ":1.5", pid: 10)
        XCTAssertEqual(order(registry).verified, [":1.1221", ":1.5", ":1.30"], "registering again keeps its activity and rank")
        XCTAssertEqual(registry.claimants(of: type, teamID: "org.example", excluding: ":1.1221").verified.first?.busName,
                       ":1.5", "never the origin")
    }

    func testAppsVerifiedForTheTypeGoBeforeMoreRecentUnverifiedOnes() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.8", pid: 20, verified: true, appID: "org.example.Mail")
        try register(registry, ":1.9", pid: 21, verified: false, appID: "org.example.Mail")
        try publish(registry, ":1.9")
        XCTAssertEqual(order(registry).verified, [":1.8"])
        XCTAssertEqual(order(registry).unverified, [":1.9"])
        XCTAssertEqual(registry.apps[":1.9"]?.verification, "no desktop entry")
        XCTAssertEqual(registry.apps[":1.8"]?.verification, "verified")
    }

    /// A verified app that claims another team's types (or types its entry does not declare)
    /// registers, but is not verified for them: it ranks with unverified apps for them.
    func testAVerifiedAppIsVerifiedOnlyForWhatItsEntryDeclares() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.1", pid: 30, appID: "org.example.Mail")
        let evil = verified(declaring: DeclaredClaims(teamID: "com.evil", activityTypes: "com.evil.x;\(type);"))
        let stranger = try registry.register(busName: ":1.2", appID: "com.evil.App", teamID: "org.example",
                                             activityTypes: [type], pid: 31, identity: evil)
        try publish(registry, ":1.2")
        XCTAssertTrue(stranger.isVerified, "it is the app of its id")
        XCTAssertFalse(stranger.isVerified(for: type))
        XCTAssertEqual(stranger.verification, "verified app, but its entry declares team com.evil, not org.example")
        XCTAssertEqual(order(registry).verified, [":1.1"], "published last, yet not before the verified claimant")
        XCTAssertEqual(order(registry).unverified, [":1.2"])

        let undeclared = try registry.register(busName: ":1.3", appID: "org.example.Notes", teamID: "org.example",
                                               activityTypes: [type, "org.example.other"], pid: 32, identity: verified())
        XCTAssertEqual(undeclared.verifiedActivityTypes, [type])
        XCTAssertFalse(undeclared.isVerified(for: "org.example.other"))
        XCTAssertEqual(undeclared.verification,
                       "verified for 1 of 2 activity types; its entry does not declare org.example.other")
        XCTAssertEqual(undeclared.verifiedState, "partly", "baton apps says partly, not yes, beside “verified for 1 of 2”")
        XCTAssertEqual(registry.apps[":1.1"]?.verifiedState, "yes")
        XCTAssertEqual(stranger.verifiedState, "no", "the app of its id, but verified for none of its types")
        let bare = try registry.register(busName: ":1.4", appID: "org.example.Bare", teamID: "org.example",
                                         activityTypes: [type], pid: 33, identity: verified(declaring: nil))
        XCTAssertTrue(bare.verifiedActivityTypes.isEmpty)
        XCTAssertTrue(bare.verification.contains("declares no X-Baton-TeamID"), bare.verification)
        let impostor = try registry.register(busName: ":1.5", appID: "org.example.Mail", teamID: "org.example",
                                             activityTypes: [type], pid: 34,
                                             identity: .unverified("runs /tmp/evil but its entry names /usr/bin/mail"))
        XCTAssertTrue(impostor.verifiedActivityTypes.isEmpty)
        XCTAssertEqual(impostor.verification, "runs /tmp/evil but its entry names /usr/bin/mail")
        XCTAssertEqual(impostor.verifiedState, "no")
    }

    func testTheAppOfTheOriginsIDGoesBeforeMoreRecentOnes() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.1", pid: 40, appID: "org.example.Mail")
        try register(registry, ":1.2", pid: 41, appID: "org.example.Other")
        try register(registry, ":1.3", pid: 42, verified: false, appID: "org.example.Mail")
        try register(registry, ":1.4", pid: 43, verified: false, appID: "org.example.Other")
        try publish(registry, ":1.1")
        usleep(2000)
        try publish(registry, ":1.2")
        try publish(registry, ":1.4")
        usleep(2000)
        try publish(registry, ":1.3")
        XCTAssertEqual(order(registry).verified, [":1.2", ":1.1"], "without an origin app id: the most recent")
        XCTAssertEqual(order(registry, originAppID: "org.example.Mail").verified, [":1.1", ":1.2"])
        XCTAssertEqual(order(registry, originAppID: "org.example.Other").unverified, [":1.4", ":1.3"])
        XCTAssertEqual(order(registry, originAppID: "org.example.Unknown").verified, [":1.2", ":1.1"])
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
