import Crypto

/// The short code both devices show while pairing.
///
/// It is derived from both public keys, in an order both sides agree on, so a device in the
/// middle that swapped in its own key makes the two screens differ. Six decimal digits, as
/// people compare them at a glance.
public enum VerificationCode {
    public static func make(_ first: [UInt8], _ second: [UInt8]) -> String {
        let (low, high) = first.lexicographicallyPrecedes(second) ? (first, second) : (second, first)
        var input: [UInt8] = Array("baton-pairing-v1".utf8)
        for key in [low, high] {
            let count = UInt32(key.count)
            input += [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
            input += key
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
