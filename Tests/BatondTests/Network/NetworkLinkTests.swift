@testable import batond
import BatonPeer
import ServiceFixtures
import XCTest

/// How ``PeerNetwork`` takes a link, in the test process over a ``SocketPairLink``: the
/// hello first, a paired device's messages to its features, a stranger's activity messages
/// refused.
@MainActor
final class NetworkLinkTests: InProcessNetworkTestCase {

    func testAPairedDeviceIsLinkedOnceItSaysHelloAndHearsThisDevicesHello() async throws {
        let phone = try await fixture.link(name: "Study phone")
        XCTAssertTrue(fixture.network.isLinked(phone.deviceID))
        XCTAssertEqual(fixture.network.devices[phone.deviceID]?.name, "Study phone")
        XCTAssertTrue(fixture.network.supports(PeerCapability.reachBack, phone.deviceID))
        let hello = await phone.first { if case .hello(let hello) = $0 { hello } else { nil } }
        XCTAssertEqual(hello?.deviceID, fixture.identity.deviceID)
        XCTAssertEqual(hello?.name, "Test laptop")
        XCTAssertEqual(hello?.capabilities, PeerProtocol.capabilities)
        XCTAssertGreaterThan(fixture.delegate.devicesChangedCount, 0)
    }

    func testAMessageBeforeTheHelloClosesTheLink() async throws {
        let phone = try await fixture.link(hello: false)
        phone.send(.pairCancel(reason: "too early"))
        let closed = await phone.waitUntilClosed()
        XCTAssertTrue(closed, "the link closes")
        XCTAssertFalse(fixture.network.isLinked(phone.deviceID))
    }

    func testASecondHelloClosesTheLink() async throws {
        let phone = try await fixture.link()
        phone.sayHello(name: "Another name")
        let closed = await phone.waitUntilClosed()
        XCTAssertTrue(closed)
        XCTAssertFalse(fixture.network.isLinked(phone.deviceID))
        XCTAssertEqual(fixture.delegate.gone, [phone.deviceID], "its offers are void")
    }

    func testAStrangersActivityMessageIsAnsweredWithUnpairAndClosesItsLink() async throws {
        let stranger = try await fixture.link(paired: false)
        XCTAssertTrue(fixture.network.isLinked(stranger.deviceID), "any device may link and say hello")
        stranger.send(.offers([]))
        let unpair = await stranger.first { $0 == .unpair ? true : nil }
        XCTAssertEqual(unpair, true, "it is told this device does not count it as paired")
        let closed = await stranger.waitUntilClosed()
        XCTAssertTrue(closed)
        XCTAssertTrue(fixture.delegate.offered.isEmpty, "nothing reaches a feature")
    }

    func testAPairedDevicesUnpairForgetsIt() async throws {
        let phone = try await fixture.link()
        phone.send(.unpair)
        let forgotten = await pumpMainLoop(timeout: 5) { !self.fixture.network.isPaired(phone.deviceID) }
        XCTAssertTrue(forgotten)
        XCTAssertEqual(fixture.delegate.gone, [phone.deviceID])
    }
}
