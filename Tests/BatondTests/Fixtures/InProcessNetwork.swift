@testable import batond
import BatonPeer
import Foundation
import Logging
import ServiceFixtures

/// A ``PeerNetwork`` inside the test process, with ``LinkedTestDevice``s linked to it over
/// ``SocketPairLink``s: its features are tested without TLS, a bus or a batond process. It
/// listens nowhere and dials nothing; its delegate is a ``RecordingNetworkDelegate``.
@MainActor
final class InProcessNetwork {
    let identity: DeviceIdentity
    let network: PeerNetwork
    let delegate = RecordingNetworkDelegate()
    /// The folder of its paired devices' file, removed by ``close()``.
    let folder: URL
    private var devices: [LinkedTestDevice] = []

    init(name: String = "Test laptop", fetchTimeout: Double = 5, keepalive: Double = 30) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("in-process-network-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        identity = try DeviceIdentity.generate()
        network = try PeerNetwork(identity: identity, name: name, paired: try PairedDevices(directory: folder),
                                  keepalive: keepalive, fetchTimeout: fetchTimeout, logger: Logger(label: "in-process-network"))
        network.delegate = delegate
    }

    /// A new device linked to the network: pinned first when `paired`, its link adopted as a
    /// link from ``PeerTLS`` is, then (unless `hello` is `false`) its hello sent and its
    /// introduction waited for. `dialed` makes the network's end the dialing one.
    func link(paired: Bool = true, dialed: Bool = false, hello: Bool = true, name: String = "Test phone",
              capabilities: Set<String> = PeerProtocol.capabilities) async throws -> LinkedTestDevice {
        let peerIdentity = try DeviceIdentity.generate()
        if paired {
            try network.paired.pin(PairedDevice(id: peerIdentity.deviceID, name: name, certificate: Data(peerIdentity.certificateDER),
                                                address: nil, pairedAt: Date()))
        }
        let ends = try SocketPairLink.make(between: identity, and: peerIdentity, localDialed: dialed,
                                           keepalive: network.tls.keepalive)
        let device = LinkedTestDevice(identity: peerIdentity, link: ends.remote)
        devices.append(device)
        network.adopt(ends.local, dialed: nil)
        guard hello else { return device }
        device.sayHello(name: name, capabilities: capabilities)
        guard await pumpMainLoop(timeout: 5, until: { network.isLinked(peerIdentity.deviceID) }) else {
            throw SocketPairError("the network did not introduce \(name): \(device.closedBecause ?? "no reason given")")
        }
        return device
    }

    /// Closes every device's link and removes the folder.
    func close() async {
        for device in devices { device.link.close("the test ended") }
        _ = await pumpMainLoop(timeout: 1) { devices.allSatisfy { !network.isLinked($0.deviceID) } }
        try? FileManager.default.removeItem(at: folder)
    }
}
