import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation

/// One pairing in progress with a linked device.
struct PairingSession {
    /// The code both devices show, from both public keys.
    let code: String
    var confirmedHere = false
    var confirmedThere = false
    /// Ends the pairing when nobody finished it in time.
    let timer: guint
}

/// Pairing: a request, the same code on both screens, a confirmation on each side; then each
/// side pins the other's certificate.
extension PeerNetwork {
    /// How long a pairing waits for both confirmations.
    static let pairingTimeout = 120.0

    /// Asks `device` to pair, and returns the verification code to compare.
    ///
    /// - Throws: ``ServiceError/unknownDevice(_:)``, or ``ServiceError/pairing(_:)`` when the
    ///   device is not linked or is paired already.
    func pair(_ device: String) throws -> (deviceID: String, code: String) {
        let deviceID = try resolve(device)
        guard !isPaired(deviceID) else {
            throw ServiceError.pairing("\(deviceName(deviceID)) is paired already")
        }
        guard let link = links[deviceID], link.isOpen else {
            throw ServiceError.pairing("\(deviceName(deviceID)) is not connected: it must be reachable to pair")
        }
        let session = pairings[deviceID] ?? beginPairing(deviceID, link)
        link.send(.pairRequest)
        logger.info("pairing with \(deviceName(deviceID)) requested; code \(session.code)")
        onChange()
        return (deviceID, session.code)
    }

    /// Confirms the pairing with `device`, whose screen shows `code`.
    ///
    /// - Returns: whether the devices are paired now (`false`: waiting for the other side).
    /// - Throws: ``ServiceError/pairing(_:)`` when no pairing is in progress, or the code is
    ///   wrong, which ends the pairing on both sides without pinning anything.
    func confirmPairing(_ device: String, code: String) throws -> Bool {
        let deviceID = try resolve(device)
        guard var session = pairings[deviceID] else {
            throw ServiceError.pairing(isPaired(deviceID) ? "\(deviceName(deviceID)) is paired already"
                : "no pairing with \(deviceName(deviceID)) is in progress: start one with baton pair \(device)")
        }
        guard VerificationCode.matches(code, session.code) else {
            links[deviceID]?.send(.pairCancel(reason: "the verification code did not match"))
            endPairing(deviceID)
            logger.warning("wrong verification code for \(deviceName(deviceID)): pairing cancelled, nothing pinned")
            throw ServiceError.pairing("wrong verification code: nothing was paired; start again with baton pair")
        }
        session.confirmedHere = true
        pairings[deviceID] = session
        links[deviceID]?.send(.pairConfirm)
        return completeIfConfirmed(deviceID)
    }

    /// Forgets a paired device, telling it so when it is linked.
    func unpair(_ device: String) throws {
        let deviceID = try resolve(device)
        guard isPaired(deviceID) else { throw ServiceError.pairing("\(deviceName(deviceID)) is not paired") }
        links[deviceID]?.send(.unpair)
        forget(deviceID)
        logger.info("unpaired \(deviceName(deviceID))")
    }

    func pairingRequested(by deviceID: String, over link: PeerLink) {
        guard !isPaired(deviceID) else {
            logger.notice("\(deviceName(deviceID)) asked to pair, but is paired already; ignored")
            return
        }
        guard pairings[deviceID] == nil else { return }
        let session = beginPairing(deviceID, link)
        logger.info("\(deviceName(deviceID)) asks to pair; code \(session.code)")
        onPairingRequest(deviceID, deviceName(deviceID), session.code)
        onChange()
    }

    func pairingConfirmedRemotely(by deviceID: String) {
        guard pairings[deviceID] != nil else { return }
        pairings[deviceID]?.confirmedThere = true
        _ = completeIfConfirmed(deviceID)
    }

    func endPairing(_ deviceID: String) {
        guard let session = pairings.removeValue(forKey: deviceID) else { return }
        GLibSources.cancel(session.timer)
        onPairingEnded(deviceID)
        onChange()
    }

    private func beginPairing(_ deviceID: String, _ link: PeerLink) -> PairingSession {
        let code = VerificationCode.make(identity.publicKeyInfo, link.peerPublicKeyInfo)
        let timer = GLibSources.once(after: Self.pairingTimeout) { [weak self] in
            guard let self, self.pairings[deviceID] != nil else { return }
            self.pairings[deviceID] = PairingSession(code: code, timer: 0)
            self.links[deviceID]?.send(.pairCancel(reason: "not confirmed in time"))
            self.endPairing(deviceID)
            self.logger.notice("pairing with \(self.deviceName(deviceID)) timed out")
        }
        let session = PairingSession(code: code, timer: timer)
        pairings[deviceID] = session
        return session
    }

    private func completeIfConfirmed(_ deviceID: String) -> Bool {
        guard let session = pairings[deviceID], session.confirmedHere, session.confirmedThere,
              let link = links[deviceID], link.isOpen else { return false }
        let device = PairedDevice(id: deviceID, name: deviceName(deviceID), certificate: Data(link.peerCertificateDER),
                                  address: addresses[deviceID], pairedAt: Date())
        do {
            try paired.pin(device)
        } catch {
            logger.error("cannot save the paired devices: \(error)")
            link.send(.pairCancel(reason: "the other device could not save the pairing"))
            endPairing(deviceID)
            return false
        }
        endPairing(deviceID)
        if let address = device.address { redial(deviceID, at: address) }
        logger.info("paired with \(device.name) (\(deviceID))")
        link.send(.offers(currentOffers()))
        return true
    }
}
