/// The characters no activity type or published title may hold.
extension ActivityLimits {
    /// Whether `scalar` is a character text from other apps and devices may not carry: a
    /// control character (C0, DEL and C1), a line or paragraph separator (U+2028, U+2029), or
    /// a bidirectional mark, embedding, override or isolate (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return bidirectionalControls.contains(scalar.value)
        }
    }

    /// Whether `text` holds any character for which ``isUnsafe(_:)`` holds.
    public static func containsUnsafe(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: isUnsafe)
    }

    /// The bidirectional marks, embeddings, overrides and isolates.
    private static let bidirectionalControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]
}
