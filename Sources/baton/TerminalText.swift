/// Text that other apps and devices chose (titles, names, types), made safe to print.
enum TerminalText {
    /// `text` with every character that could act on the terminal or on how the line reads
    /// shown as U+FFFD: control characters (an escape sequence could move the cursor or
    /// retitle the window), line and paragraph separators, and bidirectional overrides
    /// (which could make a device name read as another).
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return bidirectionalControls.contains(scalar.value)
        }
    }

    /// The bidirectional marks, embeddings, overrides and isolates.
    private static let bidirectionalControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]
}
