import BatonBus
import BatonPeer
import CGLib

/// One pairing in progress with a linked device.
struct PairingSession {
    /// Who asked: this device, which committed to `nonce` first, or the other one, whose
    /// nonce is known only by its `commitment` until it is revealed.
    enum Role {
        case requester(nonce: [UInt8])
        case responder(commitment: [UInt8], nonce: [UInt8])
    }

    var role: Role
    /// The codes, once both nonces are known.
    var codes: PairingCodes?
    var confirmedHere = false
    var confirmedThere = false
    /// Ends the pairing when nobody finished it in time.
    var timer: guint = 0
    /// Calls waiting for the codes.
    var waiters: [@MainActor (Result<PairingCodes, ServiceError>) -> Void] = []

    var isRequester: Bool {
        if case .requester = role { true } else { false }
    }
}

/// The two codes of a pairing, as one device sees them.
struct PairingCodes: Equatable, Sendable {
    /// The code this device shows: the person types it on the other device.
    let shown: String
    /// The code the other device shows: the person types it here.
    let expected: String

    /// The codes of a pairing from both keys and both nonces, for the device on `side`.
    init(requesterKey: [UInt8], responderKey: [UInt8], requesterNonce: [UInt8], responderNonce: [UInt8],
         on side: VerificationCode.Side) {
        let code = { (shownBy: VerificationCode.Side) in
            VerificationCode.make(requesterKey: requesterKey, responderKey: responderKey,
                                  requesterNonce: requesterNonce, responderNonce: responderNonce, shownBy: shownBy)
        }
        shown = code(side)
        expected = code(side.other)
    }
}
