@testable import batond
import BatonPeer
import Foundation
import Logging
import XCTest

/// How the network hands messages to features: each kind to the one feature that claims it,
/// a kind claimed twice refused as batond starts, and a kind no feature claims dropped.
@MainActor
final class PeerFeatureRoutesTests: XCTestCase {
    /// A feature that claims `kinds` and counts what it receives.
    private final class CountingFeature: PeerFeature {
        let messageKinds: Set<PeerMessage.Kind>
        private(set) var received: [PeerMessage] = []

        init(_ kinds: Set<PeerMessage.Kind>) {
            messageKinds = kinds
        }

        func received(_ message: PeerMessage, from device: PeerDevice) {
            received.append(message)
        }
    }

    func testAKindClaimedTwiceIsRefused() {
        XCTAssertThrowsError(try PeerFeatureRoutes([CountingFeature([.renamed]), CountingFeature([.offers, .renamed])])) { error in
            XCTAssertEqual((error as? PeerFeatureRoutes.ClaimedTwice)?.kind, .renamed)
        }
    }

    func testAKindOfTheNetworkCannotBeClaimed() {
        for kind in PeerFeatureRoutes.networkKinds {
            XCTAssertThrowsError(try PeerFeatureRoutes([CountingFeature([kind])]), "\(kind)")
        }
    }

    func testAMessageGoesToTheFeatureOfItsKindAndAnUnclaimedOneIsDropped() async throws {
        let renames = CountingFeature([.renamed])
        let routes = try PeerFeatureRoutes([renames, CountingFeature([.offers])])
        let device = PeerDevice(id: "a1b2c3d4")
        XCTAssertTrue(routes.deliver(.renamed(name: "Laptop"), from: device))
        XCTAssertFalse(routes.deliver(.fetch(request: 1, activityID: "note-1"), from: device), "no feature claims fetch")
        XCTAssertFalse(routes.deliver(.unknown(kind: 200), from: device), "a newer kind")
        XCTAssertFalse(routes.deliver(.ping, from: device), "the network's own kind")
        XCTAssertEqual(renames.received, [.renamed(name: "Laptop")])
    }

    /// batond's features claim every kind the network does not, and announce in the hello
    /// exactly what this build always announced.
    func testBatondsFeaturesClaimEveryOtherKindAndAnnounceTheProtocolsCapabilities() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("features-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = try PeerNetwork(identity: try DeviceIdentity.generate(), name: "test", paired: try PairedDevices(directory: directory),
                                      keepalive: 10, fetchTimeout: 5, logger: Logger(label: "test"))
        let routes = try PeerFeatureRoutes(network.features.all)
        for kind in PeerMessage.Kind.allCases where !PeerFeatureRoutes.networkKinds.contains(kind) {
            XCTAssertNotNil(routes.feature(for: kind), "\(kind) has a feature")
            XCTAssertFalse(kind.isAllowedBeforePairing, "\(kind) is a feature's: not before pairing")
        }
        XCTAssertEqual(network.capabilities, PeerProtocol.capabilities)
    }
}
