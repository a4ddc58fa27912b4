import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A real batond on a bus of its own, and the devices the test plays linked to it: a test
/// starts batond with ``startBatond(named:_:)`` (or its class's `setUp` does) and links
/// devices with ``connect(name:sortingFirst:identity:)``. After each test every link is
/// closed, and batond's logs are printed when the test failed.
@MainActor
class BatondPeerTestCase: XCTestCase {
    var session: ServiceSession!
    /// batond's device id, once started.
    var deviceID = ""
    /// The address batond listens on, once started.
    var address = ""
    /// The test's devices, whose links are closed after the test.
    var peers: [TestPeer] = []
    /// batond, once started.
    var batond: ChildProcess?

    override func setUp() async throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        session = try ServiceSession()
        try session.startBus()
    }

    override func tearDown() async throws {
        if testRun?.hasSucceeded == false { session?.printLogs() }
        for peer in peers { peer.link.close("test over") }
        _ = await pumpMainLoop(timeout: 0.2) { false }
        session?.tearDown()
    }

    /// Starts batond with `arguments`, named `name` (`--name`, which also keeps it from being
    /// renamed) unless that is `nil`, and reads its device id and address.
    func startBatond(named name: String? = "alpha", _ arguments: [String] = []) throws {
        batond = try session.startBatond((name.map { ["--name", $0] } ?? []) + arguments)
        let status = try DevicePair.status(of: session)
        deviceID = status["device-id"] as? String ?? ""
        address = status["listen"] as? String ?? ""
    }

    /// Links a device of the test's to batond (see ``TestPeer/connect(to:name:sortingFirst:relativeTo:identity:)``).
    func connect(name: String? = "gamma", sortingFirst: Bool? = nil, identity: DeviceIdentity? = nil) async throws -> TestPeer {
        let peer = try await TestPeer.connect(to: address, name: name, sortingFirst: sortingFirst, relativeTo: deviceID,
                                              identity: identity)
        peers.append(peer)
        return peer
    }

    /// `baton devices --json`: the record of `id`.
    func device(_ id: String) throws -> [String: Any]? {
        try TestPeer.device(id, on: session)
    }
}
