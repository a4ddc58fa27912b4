import Foundation

/// How X11 selection targets and the clipboard's MIME types meet: which targets are types an
/// app offers (not the display server's own, such as `TARGETS`), X11's names for UTF-8 text,
/// and the hints password managers add to a secret.
enum X11ClipboardTargets {
    /// The MIME type text is announced and promised as.
    static let utf8Text = "text/plain;charset=utf-8"

    /// X11's own names for text, read as (or converted to) ``utf8Text``, in the order a read
    /// prefers them: `UTF8_STRING`, MIME `text/plain` without a charset, then `STRING`
    /// (ISO 8859-1) and `TEXT` (whatever encoding the owner answers with).
    static let textTargets = ["UTF8_STRING", "text/plain", "STRING", "TEXT"]

    /// The hints a password manager puts beside a secret, by name, and the content that marks
    /// it secret (`nil`: the hint's presence alone does).
    ///
    /// - `x-kde-passwordManagerHint: secret`: KDE's hint; KeePassXC sets it on Linux (X11 and
    ///   Wayland), and Klipper, GPaste and `wl-paste` honour it.
    /// - `text/x-kde-passwordManagerHint: secret`: the same with a `text/` prefix, as GTK-based
    ///   clipboard watchers check it (GTK refuses MIME names without a slash).
    /// - `application/x-nspasteboard-concealed-type` and `org.nspasteboard.ConcealedType`: the
    ///   nspasteboard.org marker (macOS password managers, and the ports that carry it), whose
    ///   presence marks the content concealed.
    static let secretHints: [(target: String, secretValue: String?)] = [
        ("x-kde-passwordManagerHint", "secret"),
        ("text/x-kde-passwordManagerHint", "secret"),
        ("application/x-nspasteboard-concealed-type", nil),
        ("org.nspasteboard.ConcealedType", nil),
    ]

    /// The MIME types among an owner's `targets`, in its order, each once: X11's text targets
    /// become ``utf8Text`` (first, where the first text target stood); the display server's
    /// own targets (`TARGETS`, `TIMESTAMP`, `MULTIPLE`, `SAVE_TARGETS`…), names that are no
    /// MIME type, the password managers' hints and the promise marker are left out.
    static func types(amongTargets targets: [String]) -> [String] {
        let hints = Set(secretHints.map(\.target) + [ClipboardContent.promiseMarker])
        var types: [String] = []
        for target in targets {
            let type: String
            if textTargets.contains(target) || target.lowercased() == utf8Text {
                type = utf8Text
            } else if isMIMEType(target), !hints.contains(target) {
                type = target
            } else {
                continue
            }
            if !types.contains(type) { types.append(type) }
        }
        return types
    }

    /// Whether `name` looks like a MIME type (`image/png`, `text/plain;charset=utf-8`): a type
    /// and a subtype of token characters, then parameters; not X11's upper-case atom names.
    static func isMIMEType(_ name: String) -> Bool {
        guard name.count <= 255 else { return false }
        let essence = name.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$&-^_.+".unicodeScalars.contains(scalar))
            }
        }
    }

    /// The targets to ask an owner offering `offered` for, to read `type`, best first: the
    /// type itself, and for ``utf8Text`` X11's text targets too.
    static func targets(toRead type: String, offered: [String]) -> [String] {
        var wanted = [type]
        if type.lowercased() == utf8Text {
            wanted += offered.filter { $0.lowercased() == utf8Text && $0 != type } + textTargets
        }
        return wanted.filter { offered.contains($0) }
    }

    /// The targets this device offers while it holds the clipboard with `types`: the types,
    /// X11's text targets when ``utf8Text`` is among them, the promise marker when `marked`,
    /// and `TARGETS` and `TIMESTAMP`.
    static func targets(offering types: [String], marked: Bool) -> [String] {
        var targets = types
        if types.contains(utf8Text) { targets += textTargets.filter { !types.contains($0) } }
        if marked { targets.append(ClipboardContent.promiseMarker) }
        return targets + ["TARGETS", "TIMESTAMP"]
    }

    /// The type among `types` whose content answers a request for `target`, if any.
    static func type(answering target: String, among types: [String]) -> String? {
        if types.contains(target) { return target }
        if textTargets.contains(target), types.contains(utf8Text) { return utf8Text }
        return nil
    }

    /// Whether a hint's `content` marks the copy secret as `secretValue` says.
    static func marksSecret(_ content: [UInt8], as secretValue: String) -> Bool {
        let text = String(decoding: content.prefix(64), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0"))).lowercased() == secretValue
    }
}

extension X11ClipboardTargets {
    /// ISO 8859-1 text (X11's `STRING`) as UTF-8.
    static func utf8(fromLatin1 bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.map { Character(Unicode.Scalar($0)) }).utf8)
    }

    /// UTF-8 text as ISO 8859-1 (X11's `STRING`), characters outside it as `?`.
    static func latin1(fromUTF8 bytes: [UInt8]) -> [UInt8] {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }
    }
}
