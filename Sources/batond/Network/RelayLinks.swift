import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

/// Paired devices on other networks, reached through relay servers (Syncthing's relay
/// protocol, `relays=` in batond.conf or `--relay`): this device joins each relay, so paired
/// devices that cannot dial it reach it there, and dials through them the paired devices it
/// has no link with. Only paired devices: the relay turns everyone else away before a session,
/// and a link whose certificate is not a paired device's is closed, whatever the relay said
/// (``PeerNetwork`` checks each link made here). The link inside is Baton's own pinned TLS, as
/// on a LAN; a direct link replaces it. The dials' timer runs only while a paired device has no
/// link: with all of them linked, nothing here wakes batond.
@MainActor
final class RelayLinks {
    /// The relays this device is joined to (``start(_:)``).
    private(set) var clients: [RelayClient] = []
    /// The paired devices being dialed through the relays now.
    private var dialing: Set<String> = []
    /// When each paired device was last dialed through the relays.
    private var attempts: [String: Date] = [:]
    private var timer: guint = 0
    /// When the relays were joined (``start(_:)``).
    private var started: Date?
    private let tls: PeerTLS
    private let paired: PairedDevices
    private let logger: Logger
    /// Whether a device is linked, or has a link waiting for its hello: it is not dialed then.
    private let isLinked: @MainActor (String) -> Bool
    /// Takes a link made through a relay, with the certificate of the paired device dialed
    /// (`nil` for a link the other device made).
    private let adopt: @MainActor (PeerLink, _ expecting: [UInt8]?) -> Void

    /// Seconds between two dials of one device through the relays.
    static let redialInterval: Double = 10
    /// Seconds after batond starts before it dials through relays, so that direct dials go first.
    static let grace: Double = 3

    init(tls: PeerTLS, paired: PairedDevices, logger: Logger, isLinked: @escaping @MainActor (String) -> Bool,
         adopt: @escaping @MainActor (PeerLink, _ expecting: [UInt8]?) -> Void) {
        self.tls = tls
        self.paired = paired
        self.logger = logger
        self.isLinked = isLinked
        self.adopt = adopt
    }

    /// Joins the relays and starts dialing through them.
    func start(_ addresses: [RelayAddress]) {
        guard !addresses.isEmpty else { return }
        let started = Date()
        for address in addresses {
            let client = RelayClient(relay: address, tls: tls)
            client.onStatus = { [weak self] line in self?.logger.info("relay: \(line)") }
            client.join(accepting: { [weak self] link in
                self?.adopt(link, nil)
            }, allowing: { [weak self] digest in
                self?.paired.devices.values.contains { SyncthingDeviceID.digest(ofCertificate: Array($0.certificate)) == digest } ?? false
            })
            clients.append(client)
        }
        self.started = started
        dialWhileUnlinked()
    }

    /// Dials, every 2 seconds, the paired devices without a link, until all have one: called at
    /// the start and whenever a paired device's link closes.
    func dialWhileUnlinked() {
        guard !clients.isEmpty, timer == 0 else { return }
        timer = GLibSources.every(seconds: 2) { [weak self] in self?.tick() }
    }

    private func tick() {
        guard let started, Date().timeIntervalSince(started) >= Self.grace else { return }
        guard dialing.isEmpty, paired.devices.values.allSatisfy({ isLinked($0.id) }) else { return dial() }
        GLibSources.cancel(timer)
        timer = 0
    }

    /// Dials each paired device without a link through the relays, one relay after the
    /// other, at most every ``redialInterval`` and one dial per device at a time.
    private func dial() {
        let now = Date()
        for device in paired.devices.values where !isLinked(device.id) && !dialing.contains(device.id) {
            if let last = attempts[device.id], now.timeIntervalSince(last) < Self.redialInterval { continue }
            attempts[device.id] = now
            dialing.insert(device.id)
            let certificate = Array(device.certificate)
            let name = device.name
            Task { @MainActor in
                defer { dialing.remove(device.id) }
                for relay in clients where !isLinked(device.id) {
                    do {
                        adopt(try await relay.connect(toCertificate: certificate), certificate)
                        return
                    } catch {
                        logger.debug("dialing \(name) through the relay \(relay.relay.host):\(relay.relay.port) failed: \(error)")
                    }
                }
            }
        }
    }
}
