import Foundation
import ServiceFixtures
import XCTest

/// A laptop that was away from the network for a minute, or asleep, lists the other device's
/// current offer within 2 s of coming back: paired devices in two pairs of network namespaces.
///
/// In the first pair, A's end of the link is taken down for a minute (both links die on the
/// kernel's watch meanwhile) and brought back with a new address: A hears of it from GIO's
/// network monitor and dials B at once, and B lists A's offer, changed while it was away. In
/// the second pair, B goes to sleep: a stand-in of logind (none runs here) on a private bus
/// standing for the system bus says `PrepareForSleep(true)`, B's batond is frozen (SIGSTOP) and
/// its end of the link taken down for a minute, as a sleeping machine's network is gone too;
/// B's batond has a keepalive longer than the sleep, as a sleeping kernel probes nothing, so
/// its link looks alive on resume while A has long dropped it. Then the link comes back, B's
/// batond goes on (SIGCONT) and the stand-in says `PrepareForSleep(false)`. The two minutes
/// run at once.
final class RoamingTests: XCTestCase {
    private var moving: (namespaces: NetworkNamespacePair, devices: DevicePair)?
    private var sleeping: (namespaces: NetworkNamespacePair, devices: DevicePair)?
    private var systemBus: ServiceSession?

    /// How long the network is gone, and the machine asleep: a minute, as the issue asks.
    private static let awayTime = 60.0
    /// The address A's end of the link comes back with.
    private static let newAddressA = "10.78.0.3"

    override func setUpWithError() throws {
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
    }

    override func tearDown() {
        if let batond = sleeping?.devices.batondB, batond.isRunning { kill(batond.pid, SIGCONT) }
        if (testRun?.totalFailureCount ?? 0) > 0 {
            moving?.devices.printLogs()
            sleeping?.devices.printLogs()
            systemBus?.printLogs(label: "system bus/")
        }
        for pair in [moving, sleeping].compactMap({ $0 }) {
            pair.devices.tearDown()
            pair.namespaces.remove()
        }
        systemBus?.tearDown()
    }

    /// Whether `session` lists an activity titled `title`.
    private func lists(_ title: String, on session: ServiceSession) throws -> Bool {
        try session.activities().contains { $0["title"] as? String == title }
    }

    /// Seconds until `session` lists `title`, counted from `start`; `nil` after `timeout`.
    private func secondsUntil(_ title: String, isListedOn session: ServiceSession, since start: Date,
                              timeout: TimeInterval = 20) -> Double? {
        guard waitUntil(timeout: timeout, { try self.lists(title, on: session) }) else { return nil }
        return Date().timeIntervalSince(start)
    }

    func testAfterAMinuteOffTheNetworkOrAsleepTheOtherDevicesOfferIsListedWithinTwoSeconds() throws {
        // The stand-in of logind, on a bus of its own that stands for B's system bus.
        let bus = try ServiceSession()
        systemBus = bus
        try bus.startBus()
        let logind = try bus.start(ServiceSession.product("BatonTestApp"), ["logind"], name: "logind",
                                   environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.busAddress])
        XCTAssertTrue(waitUntil(timeout: 10) { logind.log.contains("logind stand-in ready") }, logind.log)

        let movingNamespaces = try NetworkNamespacePair(prefix: "roam-net")
        moving = (movingNamespaces, try DevicePair(namespaces: movingNamespaces, listensOnAllAddresses: true))
        let sleepingNamespaces = try NetworkNamespacePair(prefix: "roam-slp")
        sleeping = (sleepingNamespaces, try DevicePair(argumentsB: ["--keepalive", "120"], namespaces: sleepingNamespaces,
                                                       environmentB: ["DBUS_SYSTEM_BUS_ADDRESS": bus.busAddress],
                                                       listensOnAllAddresses: true))
        let (movingPair, sleepingPair) = try (XCTUnwrap(moving?.devices), XCTUnwrap(sleeping?.devices))
        try movingPair.pair()
        try sleepingPair.pair()
        let movingNote = try movingPair.a.startInstalledNote("origin", text: "on the move")
        let sleepingNote = try sleepingPair.a.startInstalledNote("origin", text: "while B sleeps")
        XCTAssertNotNil(movingPair.b.waitForActivity(titled: "Note: on the move"), "B lists A's offer")
        XCTAssertNotNil(sleepingPair.b.waitForActivity(titled: "Note: while B sleeps"), "B lists A's offer")

        // A's network goes; B goes to sleep.
        try movingNamespaces.setA(up: false)
        kill(logind.pid, SIGUSR1)
        XCTAssertTrue(waitUntil(timeout: 5) { sleepingPair.batondB.log.contains("the system is going to sleep") },
                      "B's batond heard PrepareForSleep(true): \(sleepingPair.batondB.log.suffix(800))")
        kill(sleepingPair.batondB.pid, SIGSTOP)
        try sleepingNamespaces.cutB()
        let away = Date()
        // Meanwhile A's notes change: what B must list on its return is the current offer.
        kill(movingNote.child.pid, SIGUSR1)
        kill(sleepingNote.child.pid, SIGUSR1)
        XCTAssertTrue(waitUntil(timeout: 45) { try !self.lists("Note: on the move", on: movingPair.b) },
                      "B dropped the offers of A, gone from the network")
        Thread.sleep(until: away.addingTimeInterval(Self.awayTime))

        // A comes back on the network, with a new address.
        try movingNamespaces.readdressA(Self.newAddressA)
        try movingNamespaces.setA(up: true)
        let back = Date()
        let afterNetwork = secondsUntil("Note: on the move (active)", isListedOn: movingPair.b, since: back)
        print("after a minute off the network, back with a new address: B listed A's current offer after \(afterNetwork.map { String(format: "%.2f", $0) } ?? "never") s")
        XCTAssertLessThan(try XCTUnwrap(afterNetwork, "B never listed A's current offer"), 2)
        let record = try movingPair.device(movingPair.idA, on: movingPair.b)
        XCTAssertTrue((record?["address"] as? String ?? "").hasPrefix("\(Self.newAddressA):"),
                      "B knows A at its new address: \(record ?? [:])")

        // B wakes.
        try sleepingNamespaces.restoreB()
        kill(sleepingPair.batondB.pid, SIGCONT)
        kill(logind.pid, SIGUSR2)
        let resumed = Date()
        let afterResume = secondsUntil("Note: while B sleeps (active)", isListedOn: sleepingPair.b, since: resumed)
        print("after a minute asleep: B listed A's current offer \(afterResume.map { String(format: "%.2f", $0) } ?? "never") s after the resume signal")
        XCTAssertLessThan(try XCTUnwrap(afterResume, "B never listed A's current offer"), 2)
        XCTAssertTrue(sleepingPair.batondB.log.contains("the system resumed from sleep"))
        XCTAssertTrue(logind.log.contains("PrepareForSleep(false)"), logind.log)
    }
}
