@testable import batond
import BatonBus
import Foundation
import XCTest

/// Which app's activity is this device's current one (`baton status`, `inspect`, `send
/// current`): that of the app the person used last, not the last one to publish.
@MainActor
final class CurrentActivityTests: XCTestCase {
    private let type = "org.example.mail.compose"

    private func register(_ registry: AppRegistry, _ busName: String, pid: Int32) throws {
        try registry.register(busName: busName, appID: "org.example.MailComposer", teamID: "org.example",
                              activityTypes: [type], pid: pid, identity: .unverified("no desktop entry"))
    }

    private func publish(_ registry: AppRegistry, _ busName: String, _ title: String) throws {
        try registry.publish(busName: busName, appActivityID: "a-\(title)",
                             summary: ActivitySummary(activityType: type, title: title))
        usleep(2000)
    }

    private func setActive(_ registry: AppRegistry, _ busName: String, _ active: Bool) throws {
        try registry.setActive(busName: busName, active)
        usleep(2000)
    }

    /// A draft moved to a second instance: the origin's window loses the focus to the new
    /// instance's, then the origin's draft window closes and its inbox, in the background,
    /// publishes the message it shows. The draft the person sees stays current.
    func testAnAppPublishingInTheBackgroundDoesNotTakeTheCurrentActivity() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.2", pid: 10)
        try setActive(registry, ":1.2", true)
        try publish(registry, ":1.2", "Draft: Moving")
        try register(registry, ":1.12", pid: 11)
        try publish(registry, ":1.12", "Draft: Moving (restored)")
        try setActive(registry, ":1.2", false)
        try setActive(registry, ":1.12", true)
        try publish(registry, ":1.2", "Saturday party")
        XCTAssertEqual(registry.current?.1.summary.title, "Draft: Moving (restored)")
        XCTAssertEqual(registry.current?.0.busName, registry.offered?.0.busName, "what is offered is what is current")

        try setActive(registry, ":1.12", false)
        try setActive(registry, ":1.2", true)
        XCTAssertEqual(registry.current?.1.summary.title, "Saturday party", "the person went back to the origin")
    }

    /// Apps that do not say when their windows are active count as used when they publish,
    /// and of apps never active the last to publish is current.
    func testWithoutActivationTheLastToPublishIsCurrent() async throws {
        let registry = AppRegistry()
        try register(registry, ":1.2", pid: 10)
        try register(registry, ":1.3", pid: 11)
        XCTAssertNil(registry.current)
        try publish(registry, ":1.2", "First")
        try publish(registry, ":1.3", "Second")
        XCTAssertEqual(registry.current?.1.summary.title, "Second")
        try publish(registry, ":1.2", "Third")
        XCTAssertEqual(registry.current?.1.summary.title, "Third")
        try registry.resign(busName: ":1.2")
        XCTAssertEqual(registry.current?.1.summary.title, "Second", "an app with none leaves it to the others")
    }
}
