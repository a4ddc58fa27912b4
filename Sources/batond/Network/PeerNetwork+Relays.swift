import BatonGLib
import BatonPeer
import Foundation

/// Paired devices on other networks, reached through relay servers (Syncthing's relay
/// protocol, `relays=` in batond.conf or `--relay`): this device joins each relay, so paired
/// devices that cannot dial it reach it there, and dials through them the paired devices it
/// cannot link with directly. Only paired devices: the relay turns everyone else away before
/// a session. The link inside is Baton's own pinned TLS, as on a LAN.
extension PeerNetwork {
    /// Seconds between two dials of one device through the relays.
    static let relayRedialInterval: Double = 10
    /// Seconds a device must have been without a link before it is dialed through a relay, so
    /// that a direct dial goes first.
    static let relayGrace: Double = 3

    /// Joins the relays and starts dialing through them.
    func startRelays(_ addresses: [RelayAddress]) {
        guard !addresses.isEmpty else { return }
        let started = Date()
        for address in addresses {
            let client = RelayClient(relay: address, tls: tls)
            client.onStatus = { [weak self] line in self?.logger.info("relay: \(line)") }
            client.join(accepting: { [weak self] link in
                self?.logger.info("a link through the relay \(address.host):\(address.port)")
                self?.adoptRelayed(link)
            }, allowing: { [weak self] digest in
                self?.paired.devices.values.contains { SyncthingDeviceID.digest(ofCertificate: Array($0.certificate)) == digest } ?? false
            })
            relays.append(client)
        }
        relayTimer = GLibSources.every(seconds: 2) { [weak self] in
            guard let self, Date().timeIntervalSince(started) >= Self.relayGrace else { return }
            self.dialThroughRelays()
        }
    }

    /// Takes a link made through a relay, marked so, and forgets the mark when it closes.
    private func adoptRelayed(_ link: PeerLink) {
        let key = ObjectIdentifier(link)
        relayedLinks.insert(key)
        adopt(link, dialed: nil)
        guard link.isOpen else {
            relayedLinks.remove(key)
            return
        }
        let adopted = link.onClose
        link.onClose = { [weak self] reason in
            self?.relayedLinks.remove(key)
            adopted(reason)
        }
    }

    /// Dials each paired device without a link through the relays, one relay after the other,
    /// at most every ``relayRedialInterval``.
    func dialThroughRelays() {
        let now = Date()
        for device in paired.devices.values where !isLinkedOrIntroducing(device.id) {
            if let last = relayAttempts[device.id], now.timeIntervalSince(last) < Self.relayRedialInterval { continue }
            relayAttempts[device.id] = now
            let certificate = Array(device.certificate)
            let name = device.name
            Task { @MainActor in
                for relay in relays where !isLinkedOrIntroducing(device.id) {
                    do {
                        let link = try await relay.connect(toCertificate: certificate)
                        logger.info("linked with \(name) through the relay \(relay.relay.host):\(relay.relay.port)")
                        adoptRelayed(link)
                        return
                    } catch {
                        logger.debug("dialing \(name) through the relay \(relay.relay.host):\(relay.relay.port) failed: \(error)")
                    }
                }
            }
        }
    }
}
