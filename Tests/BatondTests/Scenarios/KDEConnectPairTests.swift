import Foundation
import ServiceFixtures
import XCTest

/// The ``KDEConnectPair`` fixture alone, no batond: two real kdeconnectd, each in its own
/// network namespace on its own session bus, find each other, pair through their D-Bus API and
/// share URLs both ways. Opt-in: needs root and Debian's `kdeconnect`; skipped without them.
final class KDEConnectPairTests: XCTestCase {
    private var sessions: [ServiceSession] = []
    private var namespaces: NetworkNamespacePair?
    private var pair: KDEConnectPair?

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            print("KDEConnectPair: A is \(pair?.idA ?? "?"), B is \(pair?.idB ?? "?")")
            zip(["A ", "B "], sessions).forEach { $1.printLogs(label: $0) }
        }
        pair?.stop()
        sessions.forEach { $0.tearDown() }
        namespaces?.remove()
        super.tearDown()
    }

    func testTwoDaemonsFindEachOtherPairAndShareURLsBothWays() throws {
        if let missing = KDEConnectPair.missingRequirement { throw XCTSkip(missing) }
        let sessionA = try ServiceSession()
        let sessionB = try ServiceSession()
        sessions = [sessionA, sessionB]
        try sessionA.startBus()
        try sessionB.startBus()
        namespaces = try NetworkNamespacePair(prefix: "baton-kdc")

        var started = Date()
        pair = try KDEConnectPair(sessionA: sessionA, sessionB: sessionB, namespaces: XCTUnwrap(namespaces))
        let kdeconnect = try XCTUnwrap(pair)
        print("KDEConnectPair: the daemons saw each other after \(Self.elapsed(since: started))"
              + " (\(kdeconnect.discoveryRestarts) restarts)")
        XCTAssertFalse(kdeconnect.idA.isEmpty)
        XCTAssertFalse(kdeconnect.idB.isEmpty)
        XCTAssertNotEqual(kdeconnect.idA, kdeconnect.idB)
        XCTAssertEqual(try kdeconnect.deviceProperty("type", on: .a), "smartphone", "B announces itself as a phone")
        XCTAssertEqual(try kdeconnect.deviceProperty("type", on: .b), "desktop")
        XCTAssertEqual(try kdeconnect.deviceProperty("name", on: .a), "Pixel")
        XCTAssertEqual(try kdeconnect.deviceProperty("name", on: .b), "Desk")
        XCTAssertTrue(try kdeconnect.isReachable(on: .a))
        XCTAssertFalse(try kdeconnect.isTrusted(on: .a), "not paired yet")

        started = Date()
        try kdeconnect.pair()
        print("KDEConnectPair: paired after \(Self.elapsed(since: started))")
        XCTAssertTrue(try kdeconnect.isTrusted(on: .a))
        XCTAssertTrue(try kdeconnect.isTrusted(on: .b))

        let toA = "https://example.org/articles/handoff?from=phone&n=1"
        started = Date()
        try kdeconnect.shareURL(fromB: toA)
        XCTAssertTrue(kdeconnect.waitForReceivedURL(toA, on: .a), "A received \(kdeconnect.receivedURLs(on: .a))")
        print("KDEConnectPair: B → A share arrived after \(Self.elapsed(since: started))")

        let toB = "https://example.org/articles/back-to-the-phone#top"
        started = Date()
        try kdeconnect.shareURL(fromA: toB)
        XCTAssertTrue(kdeconnect.waitForReceivedURL(toB, on: .b), "B received \(kdeconnect.receivedURLs(on: .b))")
        print("KDEConnectPair: A → B share arrived after \(Self.elapsed(since: started))")

        XCTAssertEqual(kdeconnect.receivedURLs(on: .a), [toA], "each share arrives once, on its receiver only")
        XCTAssertEqual(kdeconnect.receivedURLs(on: .b), [toB])
        XCTAssertTrue(kdeconnect.daemon(on: .a)?.isRunning == true && kdeconnect.daemon(on: .b)?.isRunning == true,
                      "neither daemon crashed")
    }

    private static func elapsed(since start: Date) -> String {
        String(format: "%.2f s", Date().timeIntervalSince(start))
    }
}
