@testable import batond
import ServiceFixtures
import XCTest

/// Devices DNS-SD announces with a name are listed from their records, without a link, and
/// not counted per network; one address, or a flood of records, cannot grow the list without
/// end; a name posing as this device's is shown with its short id.
@MainActor
final class DiscoveredListingTests: InProcessNetworkTestCase {
    private static func deviceID(_ number: Int) -> String { String(format: "%032x", number + 1) }

    func testADeviceAnnouncedWithANameIsListedWithoutALinkUntilItsGoodbye() async {
        let network = fixture.network
        let id = Self.deviceID(1)
        network.discovered("10.78.0.2:48100", deviceID: id, name: "Desk 2")
        XCTAssertEqual(network.knownDevices, [id])
        XCTAssertEqual(network.deviceName(id), "Desk 2")
        XCTAssertEqual(network.address(of: id), "10.78.0.2:48100")
        XCTAssertFalse(network.isLinked(id))
        XCTAssertGreaterThan(fixture.delegate.devicesChangedCount, 0)
        network.undiscovered(id)
        XCTAssertEqual(network.knownDevices, [])
        XCTAssertNil(network.devices[id], "nothing is kept for it")
    }

    func testAWholeOfficeOnOneNetworkIsListed() async {
        let network = fixture.network
        for number in 1...100 {
            network.discovered("10.78.0.\(number):48100", deviceID: Self.deviceID(number), name: "Desk \(number)")
        }
        XCTAssertEqual(network.knownDevices.count, 100, "not bounded per /24")
    }

    func testOneAddressAndAFloodOfRecordsAreBounded() async {
        let network = fixture.network
        for number in 1...50 {
            network.discovered("10.78.0.9:48100", deviceID: Self.deviceID(number), name: "Flood \(number)")
        }
        XCTAssertEqual(network.knownDevices, (47...50).map(Self.deviceID).sorted(), "4 per address, the newest")
        for number in 1...1000 {
            network.discovered("10.\(number / 250).\(number % 250).1:48100", deviceID: Self.deviceID(100 + number),
                               name: "Flood \(number)")
        }
        XCTAssertEqual(network.knownDevices.count, PeerNetwork.maximumDiscoveredDevices)
        XCTAssertTrue(network.knownDevices.contains(Self.deviceID(1100)), "the newest is listed")
        XCTAssertEqual(network.devices.count, PeerNetwork.maximumDiscoveredDevices, "no object is kept for the others")
    }

    func testALinkedDeviceIsShownByItsHellosNameAndOneNotLinkedByItsRecords() async throws {
        let stranger = try await fixture.link(paired: false, name: "Desk from hello")
        let network = fixture.network
        network.discovered("10.78.0.5:48100", deviceID: stranger.deviceID, name: "Desk from record")
        XCTAssertEqual(network.deviceName(stranger.deviceID), "Desk from hello")
        XCTAssertEqual(network.knownDevices, [stranger.deviceID])
        stranger.link.close("gone")
        let unlinked = await pumpMainLoop(timeout: 5) { network.devices[stranger.deviceID]?.link == nil && !network.isLinked(stranger.deviceID) }
        XCTAssertTrue(unlinked)
        XCTAssertEqual(network.deviceName(stranger.deviceID), "Desk from record")
        XCTAssertEqual(network.address(of: stranger.deviceID), "10.78.0.5:48100")
    }

    func testANamePosingAsThisDevicesIsShownWithItsShortID() async {
        let network = fixture.network
        let id = Self.deviceID(7)
        network.discovered("10.78.0.7:48100", deviceID: id, name: "Test laptop")
        XCTAssertEqual(network.deviceName(id), "Test laptop (\(DeviceNames.shortID(id)))")
        XCTAssertEqual(network.impersonated(by: id), "this device")
    }
}
