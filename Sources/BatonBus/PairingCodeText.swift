/// A pairing's verification code as people read it: two groups of three digits, "093 954",
/// as GNOME Settings shows Bluetooth PINs.
public enum PairingCodeText {
    /// `code` grouped when it has 6 characters, else as it is.
    public static func grouped(_ code: String) -> String {
        code.count == 6 ? "\(code.prefix(3)) \(code.suffix(3))" : code
    }
}
