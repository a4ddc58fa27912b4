import BatonGLib
import BatonPeer
import Foundation

/// Paired devices on other networks, reached through relay servers (Syncthing's relay
/// protocol, `relays=` in batond.conf or `--relay`): this device joins each relay, so paired
/// devices that cannot dial it reach it there, and dials through them the paired devices it
/// has no link with. Only paired devices: the relay turns everyone else away before a session,
/// and a link whose certificate is not a paired device's is closed, whatever the relay said.
/// The link inside is Baton's own pinned TLS, as on a LAN; a direct link replaces it.
extension PeerNetwork {
    /// Seconds between two dials of one device through the relays.
    static let relayRedialInterval: Double = 10
    /// Seconds after batond starts before it dials through relays, so that direct dials go first.
    static let relayGrace: Double = 3

    /// Joins the relays and starts dialing through them.
    func startRelays(_ addresses: [RelayAddress]) {
        guard !addresses.isEmpty else { return }
        let started = Date()
        for address in addresses {
            let client = RelayClient(relay: address, tls: tls)
            client.onStatus = { [weak self] line in self?.logger.info("relay: \(line)") }
            client.join(accepting: { [weak self] link in
                self?.adoptRelayed(link, expecting: nil)
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

    /// Takes a link made through a relay, marked so: only a paired device's (the one dialed,
    /// when `certificate` is given), as the handshake showed it, not as the relay said.
    private func adoptRelayed(_ link: PeerLink, expecting certificate: [UInt8]?) {
        guard isPaired(link.peerDeviceID), certificate == nil || link.peerCertificateDER == certificate else {
            logStranger("closing a link through a relay with \(link.peerDeviceID), which is not the paired device expected",
                        from: link.remoteHost)
            return link.close("not a paired device")
        }
        link.isRelayed = true
        log(.info, about: link, "a link with \(displayName(link.peerDeviceID)) through the relay \(link.remoteAddress)")
        adopt(link, dialed: nil)
    }

    /// Dials each paired device without a link through the relays, one relay after the
    /// other, at most every ``relayRedialInterval`` and one dial per device at a time.
    func dialThroughRelays() {
        let now = Date()
        for device in paired.devices.values where !isLinkedOrIntroducing(device.id) && !relayDialing.contains(device.id) {
            if let last = relayAttempts[device.id], now.timeIntervalSince(last) < Self.relayRedialInterval { continue }
            relayAttempts[device.id] = now
            relayDialing.insert(device.id)
            let certificate = Array(device.certificate)
            let name = device.name
            Task { @MainActor in
                defer { relayDialing.remove(device.id) }
                for relay in relays where !isLinkedOrIntroducing(device.id) {
                    do {
                        adoptRelayed(try await relay.connect(toCertificate: certificate), expecting: certificate)
                        return
                    } catch {
                        logger.debug("dialing \(name) through the relay \(relay.relay.host):\(relay.relay.port) failed: \(error)")
                    }
                }
            }
        }
    }
}
