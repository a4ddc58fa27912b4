@testable import batond
import Foundation
import XCTest

/// When batond dials which address: backoff, one dial per device, and resets only after a
/// link that lasted.
final class DialPlanTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    func testFailuresDoubleTheBackoffUpToAMinute() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", source: .discovered)
        var now = start
        var waits: [Double] = []
        for _ in 0..<8 {
            XCTAssertEqual(plan.due(now: now, isLinked: { _ in false }), ["10.0.0.1:48100"])
            XCTAssertEqual(plan.due(now: now, isLinked: { _ in false }), [], "not dialed twice at once")
            plan.finished("10.0.0.1:48100", deviceID: nil, now: now)
            let next = plan.targets["10.0.0.1:48100"]?.nextAttempt ?? now
            waits.append(next.timeIntervalSince(now))
            XCTAssertEqual(plan.due(now: next.addingTimeInterval(-0.1), isLinked: { _ in false }), [])
            now = next
        }
        XCTAssertEqual(waits, [2, 4, 8, 16, 32, 60, 60, 60])
    }

    /// The next deadline is one `due` acts on: while a device is dialed at one address its
    /// other address is no deadline (batond's only timer would fire for nothing, at once,
    /// again and again), and neither is a linked device's.
    func testTheNextAttemptSkipsWhatDueSkips() {
        var plan = DialPlan()
        XCTAssertNil(plan.nextAttempt(isLinked: { _ in false }), "nothing to dial, no deadline")
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .paired)
        plan.add("[fe80::1]:48100", deviceID: "aaaa", source: .discovered)
        XCTAssertEqual(plan.nextAttempt(isLinked: { _ in false }), .distantPast)
        XCTAssertNil(plan.nextAttempt(isLinked: { $0 == "aaaa" }), "a linked device is no deadline")
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }).count, 1)
        XCTAssertNil(plan.nextAttempt(isLinked: { _ in false }), "dialed at one address: the other waits for that dial")
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), [])
        let dialed = plan.targets.first { $0.value.isDialing }?.key ?? ""
        plan.finished(dialed, deviceID: nil, now: start)
        XCTAssertEqual(plan.nextAttempt(isLinked: { _ in false }), .distantPast, "the other address, now")
    }

    func testADeviceKnownAtTwoAddressesIsDialedAtOneAtATime() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .discovered)
        plan.add("[fe80::1]:48100", deviceID: "aaaa", source: .discovered)
        plan.add("10.0.0.2:48100", deviceID: "bbbb", source: .paired)
        let first = plan.due(now: start, isLinked: { _ in false })
        XCTAssertEqual(first.count, 2, "one address of each device: \(first)")
        XCTAssertTrue(first.contains("10.0.0.2:48100"))
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), [])
        let dialedA = first.first { $0 != "10.0.0.2:48100" } ?? ""
        plan.finished(dialedA, deviceID: nil, now: start)
        let other = dialedA == "10.0.0.1:48100" ? "[fe80::1]:48100" : "10.0.0.1:48100"
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), [other], "the other address once that dial ended")
        plan.finished(other, deviceID: "aaaa", now: start)
        XCTAssertEqual(plan.due(now: start.addingTimeInterval(100), isLinked: { $0 == "aaaa" }).filter { $0 != "10.0.0.2:48100" },
                       [], "a linked device is not dialed")
    }

    func testOnlyALastingLinkResetsTheBackoff() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .paired)
        var now = start
        for _ in 0..<3 {
            _ = plan.due(now: now, isLinked: { _ in false })
            plan.finished("10.0.0.1:48100", deviceID: nil, now: now)
            now = plan.targets["10.0.0.1:48100"]?.nextAttempt ?? now
        }
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.backoff, 8)
        _ = plan.due(now: now, isLinked: { _ in false })
        plan.finished("10.0.0.1:48100", deviceID: "aaaa", now: now)
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.backoff, 8, "reaching the device alone resets nothing")
        plan.lost("aaaa", after: 0.5, now: now)
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.backoff, 16, "a link dropped at once counts as a failure")
        plan.lost("aaaa", after: 600, now: now)
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.backoff, DialPlan.firstBackoff)
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.nextAttempt, now.addingTimeInterval(DialPlan.firstBackoff))
    }

    func testAnAddressIsDialedWhileAnyReasonHolds() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .discovered)
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .paired)
        plan.add("10.0.0.9:48100", deviceID: "aaaa", source: .paired)
        plan.add("10.0.0.2:48100", source: .configured)
        plan.finished("10.0.0.2:48100", deviceID: "aaaa", now: start)

        plan.remove(device: "aaaa", source: .paired)
        XCTAssertEqual(Set(plan.targets.keys), ["10.0.0.1:48100", "10.0.0.2:48100"],
                       "unpaired: still dialed where DNS-SD announces it and where the settings name it")
        plan.remove(device: "aaaa", source: .discovered)
        XCTAssertEqual(Set(plan.targets.keys), ["10.0.0.2:48100"], "a static peer stays")

        plan.add("10.0.0.3:48100", deviceID: "bbbb", source: .discovered)
        plan.add("10.0.0.3:48100", deviceID: "bbbb", source: .paired)
        plan.remove(device: "bbbb", source: .discovered)
        XCTAssertNotNil(plan.targets["10.0.0.3:48100"], "no longer announced, but paired: still dialed")
    }

    func testATailnetAddressGoesWhenNoReasonToDialItIsLeft() {
        var plan = DialPlan()
        plan.add("100.64.0.5:48100", source: .tailnet)
        plan.add("100.64.0.6:48100", source: .tailnet)
        plan.add("100.64.0.6:48100", source: .configured)
        plan.remove("100.64.0.5:48100", source: .tailnet)
        plan.remove("100.64.0.6:48100", source: .tailnet)
        XCTAssertNil(plan.targets["100.64.0.5:48100"], "no longer listed: no longer dialed")
        XCTAssertEqual(plan.targets["100.64.0.6:48100"]?.sources, [.configured], "a static peer stays")
    }

    func testAPairedDeviceIsDialedWhereItWasSeenLastNotAtEveryAddressItHad() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .paired)
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .discovered)
        plan.add("10.0.0.2:41000", deviceID: "aaaa", source: .paired)
        plan.add("10.0.0.9:48100", deviceID: "bbbb", source: .paired)
        plan.set(["10.0.0.3:48100", "10.0.0.2:41000"], deviceID: "aaaa", source: .paired)
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.sources, [.discovered], "still announced there, so still dialed")
        XCTAssertEqual(plan.targets["10.0.0.2:41000"]?.sources, [.paired])
        XCTAssertEqual(plan.targets["10.0.0.3:48100"]?.sources, [.paired])
        plan.set(["10.0.0.3:48100"], deviceID: "aaaa", source: .paired)
        XCTAssertNil(plan.targets["10.0.0.2:41000"], "an address the device no longer has goes")
        XCTAssertEqual(plan.targets["10.0.0.9:48100"]?.sources, [.paired], "another device's stay")
    }

    /// After a resume or a network change, the addresses picked are dialed at once, their
    /// backoff started over; the others keep theirs.
    func testDialingSoonForgetsTheBackoffOfThePickedAddressesOnly() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .paired)
        plan.add("10.0.0.2:48100", deviceID: "bbbb", source: .discovered)
        for _ in 0..<5 {
            for address in plan.due(now: .distantFuture, isLinked: { _ in false }) {
                plan.finished(address, deviceID: nil, now: start)
            }
        }
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), [], "both wait out a backoff")
        plan.dialSoon { $1.deviceID == "aaaa" }
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), ["10.0.0.1:48100"])
        plan.finished("10.0.0.1:48100", deviceID: nil, now: start)
        XCTAssertEqual(plan.targets["10.0.0.1:48100"]?.backoff, 2, "the backoff started over")
        XCTAssertEqual(plan.targets["10.0.0.2:48100"]?.backoff, 32, "the other kept its own")
    }

    /// Of a device's addresses, the one asked for is dialed first, then the one it was last
    /// seen at (it may have moved away from the others), whatever their order as text.
    func testTheAddressAskedForThenTheLastSeenIsDialedFirst() {
        var plan = DialPlan()
        plan.add("10.0.0.1:48100", deviceID: "aaaa", source: .configured)
        plan.add("10.0.0.9:48100", deviceID: "aaaa", source: .paired)
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), ["10.0.0.9:48100"])
        plan.finished("10.0.0.9:48100", deviceID: nil, now: start)
        plan.request("10.0.0.5:48100", deviceID: "aaaa")
        XCTAssertEqual(plan.due(now: start, isLinked: { _ in false }), ["10.0.0.5:48100"])
    }
}
