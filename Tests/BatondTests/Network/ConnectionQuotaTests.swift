@testable import batond
import BatonPeer
import XCTest

/// Places for strangers: per address, per network and in all, the oldest taken back for a
/// newcomer; rate limits; the networks addresses count in.
final class ConnectionQuotaTests: XCTestCase {
    func testANewcomerTakesBackTheOldestPlaceOfItsOwnAddressFirst() {
        var quota = ConnectionQuota<Int>(total: 6, perAddress: 2, perNetwork: 4)
        XCTAssertEqual(quota.admit(1, from: "10.0.0.1"), [])
        XCTAssertEqual(quota.admit(2, from: "10.0.0.2"), [])
        XCTAssertEqual(quota.admit(3, from: "10.0.0.1"), [])
        XCTAssertEqual(quota.admit(4, from: "10.0.0.1"), [1], "the address's oldest place, not another address's")
        XCTAssertEqual(quota.places.map(\.id), [2, 3, 4])
    }

    func testANetworkCannotTakeEveryPlace() {
        var quota = ConnectionQuota<Int>(total: 8, perAddress: 4, perNetwork: 3)
        for id in 1...3 { XCTAssertEqual(quota.admit(id, from: "192.168.1.\(id)"), []) }
        XCTAssertEqual(quota.admit(4, from: "192.168.1.200"), [1], "the /24 is full: its oldest goes")
        XCTAssertEqual(quota.admit(5, from: "192.168.2.1"), [], "another /24 has room")
        for id in 6...8 { XCTAssertEqual(quota.admit(id, from: "2001:db8:0:1::\(id)"), []) }
        XCTAssertEqual(quota.admit(9, from: "2001:db8:0:1:ffff::1"), [6], "one /64 counts as one network")
        XCTAssertEqual(quota.places.map(\.id), [2, 3, 4, 5, 7, 8, 9])
    }

    func testAFloodFromManyAddressesEvictsItsOwnPlacesBeforeADevicesOnlyOne() {
        var quota = ConnectionQuota<String>(total: 16, perAddress: 4, perNetwork: 5)
        XCTAssertEqual(quota.admit("device", from: "192.168.1.10"), [])
        for index in 1...4 { XCTAssertEqual(quota.admit("flood \(index)", from: "192.168.1.66"), []) }
        XCTAssertEqual(quota.admit("flood 5", from: "192.168.1.67"), ["flood 1"],
                       "the network is full: the address holding the most loses its oldest, not the device")
        var total = ConnectionQuota<String>(total: 4, perAddress: 4, perNetwork: 4)
        XCTAssertEqual(total.admit("device", from: "10.0.0.1"), [])
        for index in 1...3 { XCTAssertEqual(total.admit("flood \(index)", from: "172.16.0.\(index)"), []) }
        XCTAssertEqual(total.admit("flood 4", from: "172.16.0.9"), ["flood 1"], "the network holding the most loses one")
        XCTAssertTrue(total.contains("device"))
    }

    func testWhenFullTheOldestEvictablePlaceGoesAndOtherwiseNothingChanges() {
        var quota = ConnectionQuota<String>(total: 3, perAddress: 3, perNetwork: 3)
        XCTAssertEqual(quota.admit("a", from: "10.1.0.1"), [])
        XCTAssertEqual(quota.admit("b", from: "10.2.0.1"), [])
        XCTAssertEqual(quota.admit("c", from: "10.3.0.1"), [])
        XCTAssertEqual(quota.admit("d", from: "172.16.0.1", isEvictable: { $0 != "a" }), ["b"], "a is pairing: b goes")
        XCTAssertNil(quota.admit("e", from: "172.16.0.2", isEvictable: { _ in false }), "nothing can go: refused")
        XCTAssertEqual(quota.places.map(\.id), ["a", "c", "d"], "a refusal changes nothing")
        XCTAssertEqual(quota.admit("c", from: "10.3.0.1"), [], "the same id again only moves its place")
        XCTAssertEqual(quota.places.map(\.id), ["a", "d", "c"])
    }

    func testNetworksAreSlash24AndSlash64() {
        XCTAssertEqual(NetworkPrefix.of("192.168.7.42"), "192.168.7.0/24")
        XCTAssertEqual(NetworkPrefix.of("::ffff:192.168.7.42"), "192.168.7.0/24", "IPv4-mapped counts as IPv4")
        XCTAssertEqual(NetworkPrefix.of("fe80::1:2:3:4"), "fe80:0000:0000:0000::/64")
        XCTAssertEqual(NetworkPrefix.of("2001:db8:1:2:aaaa::1"), NetworkPrefix.of("2001:db8:1:2:bbbb::9"))
        XCTAssertEqual(NetworkPrefix.of("not an address"), "not an address")
    }

    func testRateLimitCountsPerKeyWithinItsInterval() {
        var limit = RateLimit(count: 2, per: 60)
        XCTAssertTrue(limit.allow("a", now: 0))
        XCTAssertTrue(limit.allow("a", now: 1))
        XCTAssertFalse(limit.allow("a", now: 2))
        XCTAssertTrue(limit.allow("b", now: 2), "keys are counted apart")
        XCTAssertEqual(limit.wait(for: "a", now: 30), 30)
        XCTAssertFalse(limit.allow("a", now: 59.9), "a refused event is not counted, yet the window holds")
        XCTAssertTrue(limit.allow("a", now: 60))
        XCTAssertEqual(limit.wait(for: "c", now: 60), 0)
    }

    func testRateLimitForgetsKeysPastItsBound() {
        var limit = RateLimit(count: 1, per: 60, maximumKeys: 3)
        for (index, key) in ["a", "b", "c", "d"].enumerated() { XCTAssertTrue(limit.allow(key, now: Double(index))) }
        XCTAssertTrue(limit.allow("a", now: 5), "the key heard from longest ago was forgotten")
        XCTAssertFalse(limit.allow("d", now: 5))
    }

    func testHostOfAnAddress() {
        XCTAssertEqual(PeerAddress.host(of: "127.0.0.1:48100"), "127.0.0.1")
        XCTAssertEqual(PeerAddress.host(of: "[fe80::1]:48100"), "fe80::1")
        XCTAssertNil(PeerAddress.host(of: "no-port"))
    }

    func testTheAcceptRateIsATokenBucketPerAddressAndPerNetwork() {
        var rate = AcceptRate(perAddress: .init(burst: 3, rate: 1), perNetwork: .init(burst: 5, rate: 2))
        for _ in 0..<3 { XCTAssertTrue(rate.allow("10.0.0.1", now: 0)) }
        XCTAssertFalse(rate.allow("10.0.0.1", now: 0), "the address's burst is used up")
        XCTAssertTrue(rate.allow("10.0.0.2", now: 0), "another address of the network has its own bucket")
        XCTAssertTrue(rate.allow("10.0.0.3", now: 0))
        XCTAssertFalse(rate.allow("10.0.0.4", now: 0), "the network's burst of 5 is used up (the refusal took none)")
        XCTAssertTrue(rate.allow("10.0.0.4", pairedDevice: true, now: 0), "a paired device's address is not held back by its network")
        XCTAssertTrue(rate.allow("10.0.1.1", now: 0), "another /24 has its own bucket")
        XCTAssertTrue(rate.allow("2001:db8::1", now: 0))
        XCTAssertTrue(rate.allow("10.0.0.5", now: 0.5), "the network refills 2 a second")
        XCTAssertFalse(rate.allow("10.0.0.5", now: 0.5))
        XCTAssertTrue(rate.allow("10.0.0.1", now: 1), "the address refills 1 a second, the network 2")
    }

    func testConnectionsFromManyNetworksShareOneBucketThatPairedDevicesAreNotHeldBackBy() {
        var rate = AcceptRate(overall: .init(burst: 3, rate: 1))
        for index in 1...3 { XCTAssertTrue(rate.allow("2001:db8:\(index)::1", now: 0)) }
        XCTAssertFalse(rate.allow("2001:db8:4::1", now: 0), "a fourth network finds the bucket of all connections empty")
        XCTAssertTrue(rate.allow("2001:db8:5::1", pairedDevice: true, now: 0), "a paired device's address gets in")
        XCTAssertTrue(rate.allow("2001:db8:4::1", now: 1))
    }

    func testRefusalsPastTheSliceBudgetPauseTheListenerForTheRestOfTheSlice() {
        var rate = AcceptRate(perAddress: .init(burst: 1, rate: 0), perNetwork: .init(burst: 100, rate: 0))
        XCTAssertTrue(rate.allow("10.0.0.1", now: 10))
        for index in 0..<AcceptRate.refusalsPerSlice {
            XCTAssertNil(rate.pause(now: 10.01), "no pause after \(index) refusals")
            XCTAssertFalse(rate.allow("10.0.0.1", now: 10.01))
        }
        XCTAssertEqual(rate.pause(now: 10.03) ?? 0, AcceptRate.slice - 0.02, accuracy: 1e-9, "paused until the slice ends")
        XCTAssertNil(rate.pause(now: 10.2), "the next slice starts afresh")
        XCTAssertEqual(rate.refusalsToLog(now: 10.2), AcceptRate.refusalsPerSlice)
        XCTAssertFalse(rate.allow("10.0.0.1", now: 20))
        XCTAssertNil(rate.refusalsToLog(now: 20), "at most one line a minute")
        XCTAssertEqual(rate.refusalsToLog(now: 70.2), 1)
        XCTAssertNil(rate.refusalsToLog(now: 200), "nothing refused, nothing to say")
    }

    func testTheAcceptRateRemembersABoundedNumberOfAddresses() {
        var rate = AcceptRate(perAddress: .init(burst: 2, rate: 0.01), perNetwork: .init(burst: 10_000, rate: 10_000),
                              overall: .init(burst: 10_000, rate: 10_000), maximumKeys: 100)
        for index in 0..<1000 { XCTAssertTrue(rate.allow("2001:db8::\(String(index, radix: 16))", now: Double(index) * 0.001)) }
        XCTAssertTrue(rate.allow("2001:db8::3e7", now: 1), "the newest address is remembered with one token left")
        XCTAssertFalse(rate.allow("2001:db8::3e7", now: 1))
    }
}
