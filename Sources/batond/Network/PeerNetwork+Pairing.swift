import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation

/// Pairing: a request that commits to a nonce, the other side's nonce, the reveal; then each
/// screen shows a code that the person types on the other device, and each side, once both
/// confirmed, pins the other's certificate.
extension PeerNetwork {
    /// How long a pairing waits for both confirmations.
    static let pairingTimeout = 120.0
    /// How long a pairing waits for the other device's nonce, or for the requester's reveal.
    static let pairingAnswerTimeout = 10.0

    /// Asks `device` to pair, and returns the code this device shows (to be typed on the
    /// other) once the other device has answered with its nonce.
    ///
    /// - Throws: ``ServiceError/unknownDevice(_:)``, or ``ServiceError/pairing(_:)`` when the
    ///   device is not linked, is paired already, does not answer, or cancels.
    func pair(_ device: String) async throws -> (deviceID: String, code: String) {
        let deviceID = try resolve(device)
        guard !isPaired(deviceID) else {
            throw ServiceError.pairing("\(deviceName(deviceID)) is paired already")
        }
        guard let link = await linkDialingIfNeeded(deviceID) else {
            throw ServiceError.pairing("\(deviceName(deviceID)) is not connected: it must be reachable to pair")
        }
        guard !isPaired(deviceID) else {
            throw ServiceError.pairing("\(deviceName(deviceID)) is paired already")
        }
        guard supports(PeerCapability.typedPairingCodes, deviceID) else {
            throw ServiceError.pairing("\(deviceName(deviceID)) runs an older Baton that pairs by comparing one code "
                                       + "on both screens, which this device no longer accepts: update it, then pair")
        }
        if devices[deviceID]?.pairing == nil {
            let nonce = PairingNonce.make()
            beginPairing(deviceID, as: .requester(nonce: nonce))
            link.send(.pairRequest(commitment: PairingNonce.commitment(to: nonce)))
            logger.info("pairing with \(deviceName(deviceID)) requested")
            delegate?.devicesChanged()
        }
        return (deviceID, try await pairingCodes(deviceID).shown)
    }

    /// Confirms the pairing with `device`, whose screen shows `code`: the person typed it here.
    ///
    /// - Returns: whether the devices are paired now (`false`: waiting for the other side).
    /// - Throws: ``ServiceError/pairing(_:)`` when no pairing is in progress, or the code is
    ///   wrong, which ends the pairing on both sides without pinning anything.
    func confirmPairing(_ device: String, code: String) async throws -> Bool {
        let deviceID = try resolve(device)
        guard devices[deviceID]?.pairing != nil else {
            throw ServiceError.pairing(isPaired(deviceID) ? "\(deviceName(deviceID)) is paired already"
                : "no pairing with \(deviceName(deviceID)) is in progress: start one with baton pair \(device)")
        }
        let codes = try await pairingCodes(deviceID)
        guard VerificationCode.matches(code, codes.expected) else {
            endPairing(deviceID, sending: "the verification code did not match", because: "the verification code was wrong")
            logger.warning("wrong verification code for \(deviceName(deviceID)): pairing cancelled, nothing pinned")
            let own = VerificationCode.matches(code, codes.shown) ? " (that is the code this device shows: type the one \(deviceName(deviceID)) shows)" : ""
            throw ServiceError.pairing("wrong verification code\(own): nothing was paired; start again with baton pair")
        }
        guard devices[deviceID]?.pairing?.codes == codes else {
            throw ServiceError.pairing("the pairing with \(deviceName(deviceID)) ended before it was confirmed: nothing was paired")
        }
        devices[deviceID]?.pairing?.confirmedHere = true
        devices[deviceID]?.link?.send(.pairConfirm)
        return completeIfConfirmed(deviceID)
    }

    /// Forgets a paired device, telling it so when it is linked.
    func unpair(_ device: String) throws {
        let deviceID = try resolve(device)
        guard isPaired(deviceID) else { throw ServiceError.pairing("\(deviceName(deviceID)) is not paired") }
        let name = deviceName(deviceID)
        do {
            try forget(deviceID)
        } catch {
            throw ServiceError.pairing("cannot save the paired devices, so \(name) stays paired: \(error)")
        }
        devices[deviceID]?.link?.send(.unpair)
        devices[deviceID]?.link?.finish("unpaired")
        logger.info("unpaired \(name)")
    }

    /// The pairing's codes, waiting up to ``pairingAnswerTimeout`` for the nonces.
    private func pairingCodes(_ deviceID: String) async throws -> PairingCodes {
        guard let session = devices[deviceID]?.pairing else {
            throw ServiceError.pairing("the pairing with \(deviceName(deviceID)) ended")
        }
        if let codes = session.codes { return codes }
        let result = await TimedWait.value(timeout: Self.pairingAnswerTimeout) { finish in
            devices[deviceID]?.pairing?.waiters.append(finish)
        }
        guard let result else {
            if let codes = devices[deviceID]?.pairing?.codes { return codes }
            endPairing(deviceID, sending: "no answer in time", because: "no answer in time")
            throw ServiceError.pairing("\(deviceName(deviceID)) did not answer within \(Int(Self.pairingAnswerTimeout)) s: nothing was paired")
        }
        return try result.get()
    }

    /// A device asks to pair. A paired device asking again has forgotten this one, so its
    /// pin goes here too. When both asked at once, the request of the lower device id wins.
    ///
    /// Requests are limited per device id, per address and per network (past that, a request
    /// is cancelled and nobody is prompted), and few may wait at once
    /// (``incomingPairingQuota``): a newcomer ends the oldest of its address, then of its
    /// network, then of all.
    func pairingRequested(by deviceID: String, commitment: [UInt8], over link: PeerLink) {
        guard supports(PeerCapability.typedPairingCodes, deviceID) else {
            log(.info, about: link, "pairing request from \(displayName(deviceID)), which runs an older Baton, refused")
            link.send(.pairCancel(reason: "this device pairs only by typing each other's codes: update Baton on yours"))
            return
        }
        if let refusal = refusalOfPairingRequest(from: deviceID, host: link.remoteHost) {
            log(.info, about: link, "pairing request from \(displayName(deviceID)) at \(link.remoteAddress) refused: \(refusal)")
            link.send(.pairCancel(reason: refusal))
            return
        }
        if isPaired(deviceID) {
            log(.notice, from: deviceID, "\(deviceName(deviceID)) asks to pair again: it no longer counts this device as paired, so its pin is dropped here too")
            do {
                try forget(deviceID)
            } catch {
                logger.error("cannot save the paired devices: \(error)")
                link.send(.pairCancel(reason: "the other device could not drop its old pairing"))
                return
            }
        }
        if let session = devices[deviceID]?.pairing {
            if session.isRequester, session.codes == nil, identity.deviceID < deviceID { return }
            if !session.isRequester || session.codes != nil {
                endPairing(deviceID, sending: nil, because: "\(deviceName(deviceID)) started the pairing again")
            }
        }
        for other in incomingPairingQuota.admit(deviceID, from: link.remoteHost) ?? [] {
            endPairing(other, sending: "too many pairing requests are waiting there; try again later",
                       because: "a newer request needed its place")
        }
        let nonce = PairingNonce.make()
        beginPairing(deviceID, as: .responder(commitment: commitment, nonce: nonce))
        link.send(.pairAccept(nonce: nonce))
        delegate?.devicesChanged()
    }

    /// Why a pairing request from `deviceID` at `host` is refused now, if it is.
    private func refusalOfPairingRequest(from deviceID: String, host: String) -> String? {
        let now = MonotonicClock.now
        let network = NetworkPrefix.of(host)
        // Each limit is checked before any is counted, so a refused request uses up nothing.
        let waits = [pairingRequestLimits.device.wait(for: deviceID, now: now),
                     pairingRequestLimits.address.wait(for: host, now: now),
                     pairingRequestLimits.network.wait(for: network, now: now)]
        if let wait = waits.max(), wait > 0 {
            return "too many pairing requests; try again in \(Int(wait.rounded(.up))) s"
        }
        _ = pairingRequestLimits.device.allow(deviceID, now: now)
        _ = pairingRequestLimits.address.allow(host, now: now)
        _ = pairingRequestLimits.network.allow(network, now: now)
        return nil
    }

    /// The other device answered this device's request with its nonce: the code is known.
    func pairingAccepted(by deviceID: String, nonce: [UInt8], over link: PeerLink) {
        guard let session = devices[deviceID]?.pairing, case .requester(let ownNonce) = session.role, session.codes == nil else {
            return refuseUnexpectedPairingMessage(from: deviceID, over: link)
        }
        link.send(.pairReveal(nonce: ownNonce))
        settle(deviceID, codes: PairingCodes(requesterKey: identity.publicKeyInfo, responderKey: link.peerPublicKeyInfo,
                                             requesterNonce: ownNonce, responderNonce: nonce, on: .requester))
        log(.info, from: deviceID, "pairing with \(displayName(deviceID)): both nonces known")
    }

    /// The requester revealed its nonce: it must be the one it committed to.
    func pairingRevealed(by deviceID: String, nonce: [UInt8], over link: PeerLink) {
        guard let session = devices[deviceID]?.pairing, case .responder(let commitment, let ownNonce) = session.role,
              session.codes == nil else {
            return refuseUnexpectedPairingMessage(from: deviceID, over: link)
        }
        guard PairingNonce.commitment(to: nonce) == commitment else {
            log(.warning, from: deviceID, "\(deviceName(deviceID)) revealed a pairing nonce it had not committed to: pairing cancelled")
            return endPairing(deviceID, sending: "the revealed nonce did not match its commitment",
                              because: "the other device broke the pairing protocol")
        }
        let codes = PairingCodes(requesterKey: link.peerPublicKeyInfo, responderKey: identity.publicKeyInfo,
                                 requesterNonce: nonce, responderNonce: ownNonce, on: .responder)
        settle(deviceID, codes: codes)
        log(.info, from: deviceID, "\(displayName(deviceID)) asks to pair")
        delegate?.pairingRequested(by: device(deviceID), code: codes.shown)
    }

    func pairingConfirmedRemotely(by deviceID: String, over link: PeerLink) {
        guard devices[deviceID]?.pairing?.codes != nil else {
            // A confirmation for a pairing this device does not have (lost with an earlier
            // link): cancel, so the other side does not pin this device alone.
            guard !isPaired(deviceID) else { return }
            return refuseUnexpectedPairingMessage(from: deviceID, over: link)
        }
        devices[deviceID]?.pairing?.confirmedThere = true
        _ = completeIfConfirmed(deviceID)
    }

    /// Cancels the pairing under way with `device` (a name, an id or the start of an id): the
    /// person said no, or the codes differ. Both devices end it.
    func cancelPairing(_ device: String) throws {
        let deviceID = try resolve(device)
        guard devices[deviceID]?.pairing != nil else {
            throw ServiceError.pairing("no pairing with \(deviceName(deviceID)) is under way")
        }
        logger.info("the pairing with \(deviceName(deviceID)) was cancelled here")
        endPairing(deviceID, sending: "cancelled on the other device", because: "cancelled")
    }

    /// Ends the pairing with `deviceID`: waiting calls fail with `reason`, and the other
    /// device is told `cancel` when given.
    func endPairing(_ deviceID: String, sending cancel: String?, because reason: String) {
        guard let device = devices[deviceID], let session = device.pairing else { return }
        device.pairing = nil
        incomingPairingQuota.remove(deviceID)
        if let cancel { devices[deviceID]?.link?.send(.pairCancel(reason: cancel)) }
        GLibSources.cancel(session.timer)
        for waiter in session.waiters {
            waiter(.failure(.pairing("the pairing with \(deviceName(deviceID)) ended: \(reason)")))
        }
        scheduleHousekeeping()
        delegate?.pairingEnded(with: deviceID)
        delegate?.devicesChanged()
    }

    private func refuseUnexpectedPairingMessage(from deviceID: String, over link: PeerLink) {
        log(.notice, from: deviceID, "\(deviceName(deviceID)) sent a pairing message out of turn; cancelling")
        if devices[deviceID]?.pairing != nil {
            endPairing(deviceID, sending: "a pairing message out of turn", because: "a pairing message out of turn")
        } else {
            link.send(.pairCancel(reason: "no pairing is in progress here"))
        }
    }

    private func beginPairing(_ deviceID: String, as role: PairingSession.Role) {
        var session = PairingSession(role: role)
        session.waiters = devices[deviceID]?.pairing?.waiters ?? []
        if let old = devices[deviceID]?.pairing { GLibSources.cancel(old.timer) }
        device(deviceID).pairing = session
        armPairingTimer(deviceID, after: Self.pairingAnswerTimeout, "no answer in time")
    }

    /// Ends the pairing with `deviceID` after `seconds` unless it ends first: the nonces must
    /// be exchanged within ``pairingAnswerTimeout``, the confirmations within ``pairingTimeout``.
    private func armPairingTimer(_ deviceID: String, after seconds: Double, _ reason: String) {
        GLibSources.cancel(devices[deviceID]?.pairing?.timer ?? 0)
        devices[deviceID]?.pairing?.timer = GLibSources.once(after: seconds) { [weak self] in
            guard let self, self.devices[deviceID]?.pairing != nil else { return }
            self.devices[deviceID]?.pairing?.timer = 0
            self.endPairing(deviceID, sending: reason, because: reason)
            self.log(.notice, from: deviceID, "pairing with \(self.deviceName(deviceID)) ended: \(reason)")
        }
    }

    /// The codes are known: waiting calls get them, and the person has ``pairingTimeout`` to
    /// confirm on both devices.
    private func settle(_ deviceID: String, codes: PairingCodes) {
        guard let waiters = devices[deviceID]?.pairing?.waiters else { return }
        devices[deviceID]?.pairing?.codes = codes
        devices[deviceID]?.pairing?.waiters = []
        armPairingTimer(deviceID, after: Self.pairingTimeout, "not confirmed in time")
        for waiter in waiters { waiter(.success(codes)) }
        delegate?.devicesChanged()
    }

    private func completeIfConfirmed(_ deviceID: String) -> Bool {
        guard let session = devices[deviceID]?.pairing, session.confirmedHere, session.confirmedThere,
              let link = devices[deviceID]?.link, link.isOpen else { return false }
        let device = PairedDevice(id: deviceID, name: takenName(claimedName(deviceID) ?? "", by: deviceID).name,
                                  certificate: Data(link.peerCertificateDER),
                                  address: devices[deviceID]?.address, pairedAt: Date())
        do {
            try paired.pin(device)
        } catch {
            logger.error("cannot save the paired devices: \(error)")
            endPairing(deviceID, sending: "the other device could not save the pairing",
                       because: "this device could not save the pairing")
            return false
        }
        endPairing(deviceID, sending: nil, because: "paired")
        link.isTrusted = true
        linkBecamePaired(deviceID)
        if let address = device.address { redial(deviceID, at: address) }
        logger.info("paired with \(device.name) (\(deviceID))")
        if let peer = devices[deviceID] { tellFeatures(peer, .paired) }
        return true
    }
}
