import Crypto

/// The short code both devices show while pairing.
///
/// It is derived from both public keys and from a fresh nonce of each device, with the
/// requester committed to its nonce before it sees the other's (``PairingNonce``). A device
/// in the middle that swapped in its own keys must pick its nonce for one side before it
/// learns the nonce that decides the other side's code, so the two screens agree only by a
/// one-in-a-million chance, however many keys it tries beforehand. Six decimal digits, as
/// people compare them at a glance.
public enum VerificationCode {
    /// The code for a pairing that `requesterKey`'s device asked for (DER SubjectPublicKeyInfo).
    public static func make(requesterKey: [UInt8], responderKey: [UInt8],
                            requesterNonce: [UInt8], responderNonce: [UInt8]) -> String {
        var input: [UInt8] = Array("baton-pairing-v2".utf8)
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
