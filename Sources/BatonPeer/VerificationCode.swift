import Crypto

/// The short codes the two devices show while pairing: each device shows one, and the
/// person types it on the other device. The two differ, so typing the code one's own screen
/// shows confirms nothing: a confirmation proves the person saw the other screen.
///
/// They are derived from both public keys and from a fresh nonce of each device, with the
/// requester committed to its nonce before it sees the other's (``PairingNonce``). A device
/// in the middle that swapped in its own keys must pick its nonce for one side before it
/// learns the nonce that decides the other side's codes, so they match only by a
/// one-in-a-million chance, however many keys it tries beforehand. Six decimal digits, as
/// people read and type them.
public enum VerificationCode {
    /// Which device of a pairing shows a code.
    public enum Side: String, Sendable, CaseIterable {
        /// The device that asked to pair.
        case requester
        /// The device that was asked.
        case responder

        /// The other device.
        public var other: Side { self == .requester ? .responder : .requester }
    }

    /// The code `side` shows for a pairing that `requesterKey`'s device asked for (keys as
    /// DER SubjectPublicKeyInfo); the other device expects it typed.
    public static func make(requesterKey: [UInt8], responderKey: [UInt8],
                            requesterNonce: [UInt8], responderNonce: [UInt8], shownBy side: Side) -> String {
        var input: [UInt8] = Array("baton-pairing-v3-shown-by-\(side.rawValue)".utf8)
        for part in [requesterKey, responderKey, requesterNonce, responderNonce] {
            let count = UInt32(part.count)
            input += [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
            input += part
        }
        let number = SHA256.hash(data: input).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let digits = String(number)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// Whether `typed` is `code`, ignoring spaces and dashes people add while typing.
    public static func matches(_ typed: String, _ code: String) -> Bool {
        typed.filter { $0 != " " && $0 != "-" } == code
    }
}

/// The random part each device adds to a pairing's verification code.
///
/// The requester sends only a commitment to its nonce (a hash), receives the responder's
/// nonce, and then reveals its own, which the responder checks against the commitment.
public enum PairingNonce {
    /// Bytes in a nonce, and in a commitment.
    public static let size = 32

    /// A fresh nonce from the system's secure random source.
    public static func make() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<size).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// What the requester sends instead of its nonce until the responder has sent its own.
    public static func commitment(to nonce: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array("baton-pairing-commitment-v1".utf8) + nonce))
    }
}
