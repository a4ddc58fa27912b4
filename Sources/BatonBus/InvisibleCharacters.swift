/// The characters that draw nothing: Unicode's default-ignorable code points (zero-width
/// space, joiner and non-joiner, word joiner, U+FEFF, soft hyphen, variation selectors,
/// combining grapheme joiner, Hangul fillers, tags…) and the blank Braille pattern. A device
/// name that holds them reads the same as one that does not, so names from other devices are
/// taken without them (``DeviceNameSkeleton/cleaned(_:)``).
public enum InvisibleCharacters {
    /// Whether `scalar` draws nothing.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isDefaultIgnorableCodePoint || scalar.value == 0x2800
    }

    /// `text` without its invisible characters, except those that shape an emoji: a zero-width
    /// joiner between two emoji (as in 👩‍💻) and a variation selector right after one (❤️).
    public static func removing(from text: some StringProtocol) -> String {
        let scalars = Array(text.unicodeScalars)
        var kept = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() where !isInvisible(scalar) || shapesEmoji(at: index, in: scalars) {
            kept.append(scalar)
        }
        return String(kept)
    }

    /// `text` without any invisible character, emoji's included: for comparing names.
    static func removingAll(from text: some StringProtocol) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !isInvisible($0) }))
    }

    private static let zeroWidthJoiner: UInt32 = 0x200D
    private static let variationSelectors: ClosedRange<UInt32> = 0xFE0E...0xFE0F

    /// Whether the invisible character at `index` is part of an emoji sequence.
    private static func shapesEmoji(at index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        let value = scalars[index].value
        if variationSelectors.contains(value) {
            return index > 0 && isEmoji(scalars[index - 1])
        }
        guard value == zeroWidthJoiner, index + 1 < scalars.count, isEmoji(scalars[index + 1]) else { return false }
        // Before the joiner, the emoji may carry its own variation selector (🏳️‍🌈).
        var before = index - 1
        if before >= 0, variationSelectors.contains(scalars[before].value) { before -= 1 }
        return before >= 0 && isEmoji(scalars[before])
    }

    /// Whether `scalar` is an emoji other than the ASCII ones (digits, `#`, `*`).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.properties.isEmoji
    }
}
