/// Outside input (an id, a name, a type, a path) as an error message quotes it: its first
/// ``maximumLength`` characters, then "…" if there was more, with unsafe characters shown
/// as U+FFFD. An error about a 10 MiB id is then a short line, not a 10 MiB echo.
public enum Excerpt {
    /// The most characters (Unicode scalars) of the input an error message shows.
    public static let maximumLength = 80

    /// `text` cut to ``maximumLength`` characters and made safe to show.
    public static func of(_ text: some StringProtocol) -> String {
        let scalars = text.unicodeScalars
        var shown = String.UnicodeScalarView()
        for scalar in scalars.prefix(maximumLength) {
            shown.append(UnsafeCharacters.isUnsafe(scalar) ? "\u{FFFD}" : scalar)
        }
        if let cut = scalars.index(scalars.startIndex, offsetBy: maximumLength, limitedBy: scalars.endIndex),
           cut != scalars.endIndex {
            shown.append("…")
        }
        return String(shown)
    }
}
