import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// Pairing, as ``PeerNetwork`` runs it: a request that commits to a nonce, the other side's
/// nonce, the reveal; then each screen shows a code that the person types on the other device,
/// and each side, once both confirmed, pins the other's certificate. The session of each
/// device is its ``PeerDevice/pairing``; what strangers may ask is bounded here.
@MainActor
final class PairingCoordinator {
    unowned let network: PeerNetwork
    /// What strangers make this device do: pairing requests per device id, address and network.
    private var requestLimits = (device: RateLimit(count: 3, per: 60), address: RateLimit(count: 6, per: 60),
                                 network: RateLimit(count: 12, per: 60))
    /// Places for pairings other devices asked for, by device id.
    private var incomingQuota = ConnectionQuota<String>(total: maximumIncoming, perAddress: 1, perNetwork: 2)

    /// How long a pairing waits for both confirmations.
    static let timeout = 120.0
    /// How long a pairing waits for the other device's nonce, or for the requester's reveal.
    static let answerTimeout = 10.0

    /// The most pairings other devices asked for that may be under way at once, in all, per
    /// address and per network.
    static let maximumIncoming = 4

    init(network: PeerNetwork) {
        self.network = network
    }

    /// Handles a pairing message (a request, its answers, a cancel or an unpair) from
    /// `device` over its current link; `false` for any other message.
    func received(_ message: PeerMessage, from device: PeerDevice, over link: PeerLink) -> Bool {
        let deviceID = device.id
        switch message {
        case .pairRequest(let commitment):
            pairingRequested(by: deviceID, commitment: commitment, over: link)
        case .pairAccept(let nonce):
            pairingAccepted(by: deviceID, nonce: nonce, over: link)
        case .pairReveal(let nonce):
            pairingRevealed(by: deviceID, nonce: nonce, over: link)
        case .pairConfirm:
            pairingConfirmedRemotely(by: deviceID, over: link)
        case .pairCancel(let reason):
            guard device.pairing != nil else { return true }
            endPairing(deviceID, sending: nil, because: "\(network.deviceName(deviceID)) cancelled: \(reason)")
            network.log(.notice, from: deviceID, "\(network.deviceName(deviceID)) cancelled pairing: \(reason)")
        case .unpair:
            guard network.isPaired(deviceID) else { return true }
            do {
                try network.forget(deviceID)
                network.logger.notice("\(network.deviceName(deviceID)) unpaired this device")
            } catch {
                network.logger.error("\(network.deviceName(deviceID)) unpaired this device, but the paired devices cannot be saved: \(error)")
            }
        default:
            return false
        }
        return true
    }

    /// Asks `device` to pair, and returns the code this device shows (to be typed on the
    /// other) once the other device has answered with its nonce.
    ///
    /// - Throws: ``ServiceError/unknownDevice(_:)``, or ``ServiceError/pairing(_:)`` when the
    ///   device is not linked, is paired already, does not answer, or cancels.
    func pair(_ device: String) async throws -> (deviceID: String, code: String) {
        let deviceID = try network.resolve(device)
        guard !network.isPaired(deviceID) else {
            throw ServiceError.pairing("\(network.deviceName(deviceID)) is paired already")
        }
        guard let link = await network.linkDialingIfNeeded(deviceID) else {
            throw ServiceError.pairing("\(network.deviceName(deviceID)) is not connected: it must be reachable to pair")
        }
        guard !network.isPaired(deviceID) else {
            throw ServiceError.pairing("\(network.deviceName(deviceID)) is paired already")
        }
        guard network.supports(PeerCapability.typedPairingCodes, deviceID) else {
            throw ServiceError.pairing("\(network.deviceName(deviceID)) runs an older Baton that pairs by comparing one code "
                                       + "on both screens, which this device no longer accepts: update it, then pair")
        }
        if network.devices[deviceID]?.pairing == nil {
            let nonce = PairingNonce.make()
            beginPairing(deviceID, as: .requester(nonce: nonce))
            link.send(.pairRequest(commitment: PairingNonce.commitment(to: nonce)))
            network.logger.info("pairing with \(network.deviceName(deviceID)) requested")
            network.delegate?.devicesChanged()
        }
        return (deviceID, try await pairingCodes(deviceID).shown)
    }

    /// Confirms the pairing with `device`, whose screen shows `code`: the person typed it here.
    ///
    /// - Returns: whether the devices are paired now (`false`: waiting for the other side).
    /// - Throws: ``ServiceError/pairing(_:)`` when no pairing is in progress, or the code is
    ///   wrong, which ends the pairing on both sides without pinning anything.
    func confirmPairing(_ device: String, code: String) async throws -> Bool {
        let deviceID = try network.resolve(device)
        guard network.devices[deviceID]?.pairing != nil else {
            throw ServiceError.pairing(network.isPaired(deviceID) ? "\(network.deviceName(deviceID)) is paired already"
                : "no pairing with \(network.deviceName(deviceID)) is in progress: start one with baton pair \(device)")
        }
        let codes = try await pairingCodes(deviceID)
        guard VerificationCode.matches(code, codes.expected) else {
            endPairing(deviceID, sending: "the verification code did not match", because: "the verification code was wrong")
            network.logger.warning("wrong verification code for \(network.deviceName(deviceID)): pairing cancelled, nothing pinned")
            let own = VerificationCode.matches(code, codes.shown) ? " (that is the code this device shows: type the one \(network.deviceName(deviceID)) shows)" : ""
            throw ServiceError.pairing("wrong verification code\(own): nothing was paired; start again with baton pair")
        }
        guard network.devices[deviceID]?.pairing?.codes == codes else {
            throw ServiceError.pairing("the pairing with \(network.deviceName(deviceID)) ended before it was confirmed: nothing was paired")
        }
        network.devices[deviceID]?.pairing?.confirmedHere = true
        network.devices[deviceID]?.link?.send(.pairConfirm)
        return completeIfConfirmed(deviceID)
    }

    /// Forgets a paired device, telling it so when it is linked.
    func unpair(_ device: String) throws {
        let deviceID = try network.resolve(device)
        guard network.isPaired(deviceID) else { throw ServiceError.pairing("\(network.deviceName(deviceID)) is not paired") }
        let name = network.deviceName(deviceID)
        do {
            try network.forget(deviceID)
        } catch {
            throw ServiceError.pairing("cannot save the paired devices, so \(name) stays paired: \(error)")
        }
        network.devices[deviceID]?.link?.send(.unpair)
        network.devices[deviceID]?.link?.finish("unpaired")
        network.logger.info("unpaired \(name)")
    }

    /// The pairing's codes, waiting up to ``answerTimeout`` for the nonces.
    private func pairingCodes(_ deviceID: String) async throws -> PairingCodes {
        guard let session = network.devices[deviceID]?.pairing else {
            throw ServiceError.pairing("the pairing with \(network.deviceName(deviceID)) ended")
        }
        if let codes = session.codes { return codes }
        let result = await TimedWait.value(timeout: Self.answerTimeout) { finish in
            network.devices[deviceID]?.pairing?.waiters.append(finish)
        }
        guard let result else {
            if let codes = network.devices[deviceID]?.pairing?.codes { return codes }
            endPairing(deviceID, sending: "no answer in time", because: "no answer in time")
            throw ServiceError.pairing("\(network.deviceName(deviceID)) did not answer within \(Int(Self.answerTimeout)) s: nothing was paired")
        }
        return try result.get()
    }

    /// A device asks to pair. A paired device asking again has forgotten this one, so its
    /// pin goes here too. When both asked at once, the request of the lower device id wins.
    ///
    /// Requests are limited per device id, per address and per network (past that, a request
    /// is cancelled and nobody is prompted), and few may wait at once
    /// (``incomingQuota``): a newcomer ends the oldest of its address, then of its
    /// network, then of all.
    private func pairingRequested(by deviceID: String, commitment: [UInt8], over link: PeerLink) {
        guard network.supports(PeerCapability.typedPairingCodes, deviceID) else {
            network.log(.info, about: link, "pairing request from \(network.displayName(deviceID)), which runs an older Baton, refused")
            link.send(.pairCancel(reason: "this device pairs only by typing each other's codes: update Baton on yours"))
            return
        }
        if let refusal = refusalOfPairingRequest(from: deviceID, host: link.remoteHost) {
            network.log(.info, about: link, "pairing request from \(network.displayName(deviceID)) at \(link.remoteAddress) refused: \(refusal)")
            link.send(.pairCancel(reason: refusal))
            return
        }
        if network.isPaired(deviceID) {
            network.log(.notice, from: deviceID, "\(network.deviceName(deviceID)) asks to pair again: it no longer counts this device as paired, so its pin is dropped here too")
            do {
                try network.forget(deviceID)
            } catch {
                network.logger.error("cannot save the paired devices: \(error)")
                link.send(.pairCancel(reason: "the other device could not drop its old pairing"))
                return
            }
        }
        if let session = network.devices[deviceID]?.pairing {
            if session.isRequester, session.codes == nil, network.identity.deviceID < deviceID { return }
            if !session.isRequester || session.codes != nil {
                endPairing(deviceID, sending: nil, because: "\(network.deviceName(deviceID)) started the pairing again")
            }
        }
        for other in incomingQuota.admit(deviceID, from: link.remoteHost) ?? [] {
            endPairing(other, sending: "too many pairing requests are waiting there; try again later",
                       because: "a newer request needed its place")
        }
        let nonce = PairingNonce.make()
        beginPairing(deviceID, as: .responder(commitment: commitment, nonce: nonce))
        link.send(.pairAccept(nonce: nonce))
        network.delegate?.devicesChanged()
    }

    /// Why a pairing request from `deviceID` at `host` is refused now, if it is.
    private func refusalOfPairingRequest(from deviceID: String, host: String) -> String? {
        let now = MonotonicClock.now
        let prefix = NetworkPrefix.of(host)
        // Each limit is checked before any is counted, so a refused request uses up nothing.
        let waits = [requestLimits.device.wait(for: deviceID, now: now),
                     requestLimits.address.wait(for: host, now: now),
                     requestLimits.network.wait(for: prefix, now: now)]
        if let wait = waits.max(), wait > 0 {
            return "too many pairing requests; try again in \(Int(wait.rounded(.up))) s"
        }
        _ = requestLimits.device.allow(deviceID, now: now)
        _ = requestLimits.address.allow(host, now: now)
        _ = requestLimits.network.allow(prefix, now: now)
        return nil
    }

    /// The other device answered this device's request with its nonce: the code is known.
    private func pairingAccepted(by deviceID: String, nonce: [UInt8], over link: PeerLink) {
        guard let session = network.devices[deviceID]?.pairing, case .requester(let ownNonce) = session.role, session.codes == nil else {
            return refuseUnexpectedPairingMessage(from: deviceID, over: link)
        }
        link.send(.pairReveal(nonce: ownNonce))
        settle(deviceID, codes: PairingCodes(requesterKey: network.identity.publicKeyInfo, responderKey: link.peerPublicKeyInfo,
                                             requesterNonce: ownNonce, responderNonce: nonce, on: .requester))
        network.log(.info, from: deviceID, "pairing with \(network.displayName(deviceID)): both nonces known")
    }

    /// The requester revealed its nonce: it must be the one it committed to.
    private func pairingRevealed(by deviceID: String, nonce: [UInt8], over link: PeerLink) {
        guard let session = network.devices[deviceID]?.pairing, case .responder(let commitment, let ownNonce) = session.role,
              session.codes == nil else {
            return refuseUnexpectedPairingMessage(from: deviceID, over: link)
        }
        guard PairingNonce.commitment(to: nonce) == commitment else {
            network.log(.warning, from: deviceID, "\(network.deviceName(deviceID)) revealed a pairing nonce it had not committed to: pairing cancelled")
            return endPairing(deviceID, sending: "the revealed nonce did not match its commitment",
                              because: "the other device broke the pairing protocol")
        }
        let codes = PairingCodes(requesterKey: link.peerPublicKeyInfo, responderKey: network.identity.publicKeyInfo,
                                 requesterNonce: nonce, responderNonce: ownNonce, on: .responder)
        settle(deviceID, codes: codes)
        network.log(.info, from: deviceID, "\(network.displayName(deviceID)) asks to pair")
        network.delegate?.pairingRequested(by: network.device(deviceID), code: codes.shown)
    }

    /// The other device confirmed: once this one did too, each pins the other.
    private func pairingConfirmedRemotely(by deviceID: String, over link: PeerLink) {
        guard network.devices[deviceID]?.pairing?.codes != nil else {
            // A confirmation for a pairing this device does not have (lost with an earlier
            // link): cancel, so the other side does not pin this device alone.
            guard !network.isPaired(deviceID) else { return }
            return refuseUnexpectedPairingMessage(from: deviceID, over: link)
        }
        network.devices[deviceID]?.pairing?.confirmedThere = true
        _ = completeIfConfirmed(deviceID)
    }

    /// Cancels the pairing under way with `device` (a name, an id or the start of an id): the
    /// person said no, or the codes differ. Both devices end it.
    func cancelPairing(_ device: String) throws {
        let deviceID = try network.resolve(device)
        guard network.devices[deviceID]?.pairing != nil else {
            throw ServiceError.pairing("no pairing with \(network.deviceName(deviceID)) is under way")
        }
        network.logger.info("the pairing with \(network.deviceName(deviceID)) was cancelled here")
        endPairing(deviceID, sending: "cancelled on the other device", because: "cancelled")
    }

    /// Ends the pairing with `deviceID`: waiting calls fail with `reason`, and the other
    /// device is told `cancel` when given.
    func endPairing(_ deviceID: String, sending cancel: String?, because reason: String) {
        guard let device = network.devices[deviceID], let session = device.pairing else { return }
        device.pairing = nil
        incomingQuota.remove(deviceID)
        if let cancel { network.devices[deviceID]?.link?.send(.pairCancel(reason: cancel)) }
        GLibSources.cancel(session.timer)
        for waiter in session.waiters {
            waiter(.failure(.pairing("the pairing with \(network.deviceName(deviceID)) ended: \(reason)")))
        }
        network.scheduleHousekeeping()
        network.delegate?.pairingEnded(with: deviceID)
        network.delegate?.devicesChanged()
    }

    private func refuseUnexpectedPairingMessage(from deviceID: String, over link: PeerLink) {
        network.log(.notice, from: deviceID, "\(network.deviceName(deviceID)) sent a pairing message out of turn; cancelling")
        if network.devices[deviceID]?.pairing != nil {
            endPairing(deviceID, sending: "a pairing message out of turn", because: "a pairing message out of turn")
        } else {
            link.send(.pairCancel(reason: "no pairing is in progress here"))
        }
    }

    private func beginPairing(_ deviceID: String, as role: PairingSession.Role) {
        var session = PairingSession(role: role)
        session.waiters = network.devices[deviceID]?.pairing?.waiters ?? []
        if let old = network.devices[deviceID]?.pairing { GLibSources.cancel(old.timer) }
        network.device(deviceID).pairing = session
        armPairingTimer(deviceID, after: Self.answerTimeout, "no answer in time")
    }

    /// Ends the pairing with `deviceID` after `seconds` unless it ends first: the nonces must
    /// be exchanged within ``answerTimeout``, the confirmations within ``timeout``.
    private func armPairingTimer(_ deviceID: String, after seconds: Double, _ reason: String) {
        GLibSources.cancel(network.devices[deviceID]?.pairing?.timer ?? 0)
        network.devices[deviceID]?.pairing?.timer = GLibSources.once(after: seconds) { [weak self] in
            guard let self, self.network.devices[deviceID]?.pairing != nil else { return }
            self.network.devices[deviceID]?.pairing?.timer = 0
            self.endPairing(deviceID, sending: reason, because: reason)
            self.network.log(.notice, from: deviceID, "pairing with \(self.network.deviceName(deviceID)) ended: \(reason)")
        }
    }

    /// The codes are known: waiting calls get them, and the person has ``timeout`` to
    /// confirm on both devices.
    private func settle(_ deviceID: String, codes: PairingCodes) {
        guard let waiters = network.devices[deviceID]?.pairing?.waiters else { return }
        network.devices[deviceID]?.pairing?.codes = codes
        network.devices[deviceID]?.pairing?.waiters = []
        armPairingTimer(deviceID, after: Self.timeout, "not confirmed in time")
        for waiter in waiters { waiter(.success(codes)) }
        network.delegate?.devicesChanged()
    }

    private func completeIfConfirmed(_ deviceID: String) -> Bool {
        guard let session = network.devices[deviceID]?.pairing, session.confirmedHere, session.confirmedThere,
              let link = network.devices[deviceID]?.link, link.isOpen else { return false }
        let device = PairedDevice(id: deviceID, name: network.names.takenName(network.claimedName(deviceID) ?? "", by: deviceID).name,
                                  certificate: Data(link.peerCertificateDER),
                                  address: network.devices[deviceID]?.address, pairedAt: Date())
        do {
            try network.paired.pin(device)
        } catch {
            network.logger.error("cannot save the paired devices: \(error)")
            endPairing(deviceID, sending: "the other device could not save the pairing",
                       because: "this device could not save the pairing")
            return false
        }
        endPairing(deviceID, sending: nil, because: "paired")
        link.isTrusted = true
        network.linkBecamePaired(deviceID)
        if let address = device.address { network.redial(deviceID, at: address) }
        network.logger.info("paired with \(device.name) (\(deviceID))")
        if let peer = network.devices[deviceID] { network.tellFeatures(peer, .paired) }
        return true
    }
}
