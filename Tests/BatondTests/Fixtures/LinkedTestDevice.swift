import BatonPeer
import Foundation
import ServiceFixtures

/// A device played by the test, in the test process, at the far end of a ``SocketPairLink``:
/// what it sends reaches the ``PeerNetwork`` under test, and what the network sends it is
/// kept in ``received``.
@MainActor
final class LinkedTestDevice {
    let identity: DeviceIdentity
    /// Its own end of the link.
    let link: PeerLink
    /// Every message it received, keepalives left out, oldest first.
    private(set) var received: [PeerMessage] = []
    /// Why its link closed, once the network closed it (or it failed).
    private(set) var closedBecause: String?

    /// Takes `link`, its end, and starts reading. It trusts the network's device (as a paired
    /// device does), so that activity messages from it arrive.
    init(identity: DeviceIdentity, link: PeerLink) {
        self.identity = identity
        self.link = link
        link.isTrusted = true
        link.onMessage = { [weak self] in self?.received.append($0) }
        link.onClose = { [weak self] in self?.closedBecause = $0 }
        link.start()
    }

    var deviceID: String { identity.deviceID }

    /// Sends `message` to the network.
    func send(_ message: PeerMessage) {
        link.send(message)
    }

    /// Says hello, as a device does first on a new link.
    func sayHello(name: String = "Test phone", port: UInt32 = 0,
                  capabilities: Set<String> = PeerProtocol.capabilities) {
        send(.hello(PeerHello(deviceID: identity.deviceID, name: name, port: port, capabilities: capabilities)))
    }

    /// Whether its link is closed: the network closed it, or it was closed here.
    var isClosed: Bool { closedBecause != nil || !link.isOpen }

    /// The first message received (from the `after`th on) that `match` accepts, pumping the
    /// main loop up to `timeout` seconds; `nil` when none came, or the link closed first.
    func first<T>(after start: Int = 0, timeout: Double = 5, _ match: @escaping (PeerMessage) -> T?) async -> T? {
        var found: T?
        _ = await pumpMainLoop(timeout: timeout) {
            found = received.dropFirst(start).lazy.compactMap(match).first
            return found != nil || isClosed
        }
        if found == nil { found = received.dropFirst(start).lazy.compactMap(match).first }
        return found
    }

    /// Waits up to `timeout` seconds for the network to close the link.
    func waitUntilClosed(timeout: Double = 5) async -> Bool {
        await pumpMainLoop(timeout: timeout) { isClosed }
    }
}
