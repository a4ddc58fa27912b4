import BatonBus

/// Text that other apps and devices chose (titles, names, types, userInfo), made safe to print.
enum TerminalText {
    /// `text` with every character that could act on the terminal or on how the line reads
    /// shown as U+FFFD: the ``UnsafeCharacters`` (control characters, line and paragraph
    /// separators, bidirectional controls), the same that batond refuses in titles and names.
    static func printable(_ text: String) -> String {
        UnsafeCharacters.replacing(in: text)
    }

    /// A JSON value (as `JSONSerialization` makes and takes them) with every string in it,
    /// dictionary keys included, made ``printable(_:)``.
    static func printable(json value: Any) -> Any {
        switch value {
        case let text as String:
            return printable(text)
        case let object as [String: Any]:
            var cleaned: [String: Any] = [:]
            for (key, member) in object { cleaned[printable(key)] = printable(json: member) }
            return cleaned
        case let array as [Any]:
            return array.map { printable(json: $0) }
        default:
            return value
        }
    }
}
