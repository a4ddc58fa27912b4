import Baton
import BatonBus
import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// Runs no work: the activity below is published by hand, as the app's Handoff client would.
@MainActor
private final class ManualPublishing: ActivityScheduler {
    func schedule(_ work: @escaping @MainActor () -> Void) {}
}

/// A webpage URL against a real batond: the core refuses one over the service's limit where
/// the app sets it, and the longest it accepts is published and listed, so the app never
/// publishes what batond refuses. The test plays the app on the session bus: it registers,
/// and publishes its activity's summary the way BatonGtk's Handoff client does
/// (``ActivitySummary/cleaned``).
final class WebpageURLLimitServiceTests: ServiceTestCase {
    private let appID = "org.baton.LimitsTest"
    private let type = "org.baton.test.limits"

    @MainActor
    func testAnOverLongURLIsRefusedAtTheSetterAndTheLongestIsPublishedAndListed() async throws {
        let connection = try BusConnection.bus(at: session.busAddress)
        func daemon(_ method: String, _ arguments: [BusValue] = []) throws -> [BusValue] {
            try connection.callSync("org.baton.Daemon", path: "/org/baton/Daemon", interface: "org.baton.Daemon1",
                                    method: method, arguments: arguments, timeout: 20)
        }
        _ = try daemon("Register", [.string(appID), .string("org.baton.test"), .strings([type])])

        let activity = UserActivity(activityType: type, center: ActivityCenter(scheduler: ManualPublishing()))
        activity.title = "Read the long page"
        let limit = ActivityLimits.maximumWebpageURLLength
        let start = "https://example.org/articles/"
        let over = try XCTUnwrap(URL(string: start + String(repeating: "a", count: limit + 1 - start.utf8.count)))
        XCTAssertThrowsError(try activity.setWebpageURL(over), "the core refuses it where it is set") { error in
            guard case .invalidWebpageURL(let message)? = error as? UserActivityError else {
                return XCTFail("not invalidWebpageURL: \(error)")
            }
            XCTAssertTrue(message.contains("\(limit + 1) bytes") && message.contains("limit of \(limit) bytes"), message)
        }
        XCTAssertNil(activity.webpageURL, "the activity is unchanged")

        let longest = try XCTUnwrap(URL(string: start + String(repeating: "a", count: limit - start.utf8.count)))
        try activity.setWebpageURL(longest)
        let activityID = UUID().uuidString.lowercased()
        _ = try daemon("PublishCurrent", [.string(activityID), .dictionary(ActivitySummary(activity).cleaned.record)])

        let listed = try daemon("ListActivities").first?.dictionaries ?? []
        let entry = try XCTUnwrap(listed.first { $0["app-id"]?.string == appID }, "listed: \(listed)")
        XCTAssertEqual(entry["webpage-url"]?.string, longest.absoluteString)
        XCTAssertEqual(entry["title"]?.string, "Read the long page")
        XCTAssertTrue(try activities().contains { $0["webpage-url"] as? String == longest.absoluteString },
                      "baton activities lists it")

        // One byte more, published past the core, is what batond refuses: the same limit.
        var record = ActivitySummary(activity).cleaned.record
        record["webpage-url"] = .string(over.absoluteString)
        record["title"] = .string("Never listed")
        XCTAssertThrowsError(try daemon("PublishCurrent", [.string(activityID), .dictionary(record)])) { error in
            let message = (error as? BusError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains("at most 4 KiB (\(limit) bytes)") && message.contains("\(limit + 1) bytes"), message)
        }
        let after = try daemon("ListActivities").first?.dictionaries ?? []
        XCTAssertEqual(after.first { $0["app-id"]?.string == appID }?["title"]?.string, "Read the long page",
                       "the refused publish changed nothing")
        try assertServiceAlive()
        withExtendedLifetime(connection) {}
    }
}
