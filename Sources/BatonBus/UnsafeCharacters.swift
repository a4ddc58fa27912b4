import Baton

/// The characters that text from other apps and devices (titles, device names, activity
/// types, ids) may not carry: they could act on a terminal or change how a line reads.
///
/// They are the control characters (C0, DEL and C1: an escape sequence could move the
/// cursor or retitle the window), the line and paragraph separators (U+2028, U+2029), and
/// the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069), which could make a device name read as another. batond
/// refuses records and messages whose text fields hold any of them; `baton` shows them as
/// U+FFFD where it prints text it did not check, and apps clean what they publish with
/// ``cleaned(_:)``. The set itself is the core's, `ActivityLimits/isUnsafe(_:)`, which
/// keeps activity types batond would refuse from becoming current.
public enum UnsafeCharacters {
    /// Whether `scalar` is one of the unsafe characters.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        ActivityLimits.isUnsafe(scalar)
    }

    /// Whether `text` holds any unsafe character.
    public static func occur(in text: some StringProtocol) -> Bool {
        ActivityLimits.containsUnsafe(text)
    }

    /// `text` with every unsafe character replaced by `replacement` (U+FFFD unless given).
    public static func replacing(in text: some StringProtocol, with replacement: Unicode.Scalar = "\u{FFFD}") -> String {
        guard occur(in: text) else { return String(text) }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? replacement : scalar)
        }
        return String(scalars)
    }

    /// `text` made safe to publish: tabs, line breaks (`\n`, `\r`, `\r\n`, vertical tab, form
    /// feed, U+0085) and the line and paragraph separators become a space, and every other
    /// unsafe character (other controls, bidirectional marks and overrides) is removed.
    /// Text without unsafe characters comes back as it is.
    public static func cleaned(_ text: some StringProtocol) -> String {
        guard occur(in: text) else { return String(text) }
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            if scalar == "\n", previous == "\r" { continue }
            if breaks.contains(scalar.value) {
                scalars.append(" ")
            } else if !isUnsafe(scalar) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The unsafe characters that separate words, which ``cleaned(_:)`` turns into a space.
    private static let breaks: Set<UInt32> = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]
}
