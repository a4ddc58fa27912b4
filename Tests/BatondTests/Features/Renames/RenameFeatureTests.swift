@testable import batond
import BatonPeer
import ServiceFixtures
import XCTest

/// Renames over an in-process link (``InProcessNetwork``): a paired device's new name is
/// taken, and this device's new name reaches the linked paired devices.
@MainActor
final class RenameFeatureTests: InProcessNetworkTestCase {

    func testAPairedDevicesNewNameIsTakenAndReported() async throws {
        let phone = try await fixture.link(name: "Phone")
        phone.send(.renamed(name: "Kitchen phone"))
        let renamed = await pumpMainLoop(timeout: 5) { self.fixture.delegate.renamed == [phone.deviceID] }
        XCTAssertTrue(renamed)
        XCTAssertEqual(fixture.network.devices[phone.deviceID]?.name, "Kitchen phone")
        XCTAssertEqual(fixture.network.paired.devices[phone.deviceID]?.name, "Kitchen phone", "the pin keeps it")
    }

    func testThisDevicesNewNameReachesALinkedPairedDevice() async throws {
        let phone = try await fixture.link()
        let start = phone.received.count
        fixture.network.rename(to: "Desk laptop")
        let name = await phone.first(after: start) { if case .renamed(let name) = $0 { name } else { nil } }
        XCTAssertEqual(name, "Desk laptop")
    }
}
