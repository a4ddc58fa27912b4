import Baton
import BatonBus
import Foundation

/// What batond takes from a phone service, which passes on what the phone (another device)
/// says: names shown to people, and links.
enum PhoneNames {
    /// A device name to show: trimmed, without control or bidirectional characters, at most
    /// 255 bytes; `nil` when nothing is left.
    static func clean(_ name: String) -> String? {
        let kept = String(String.UnicodeScalarView(name.unicodeScalars.filter { !UnsafeCharacters.isUnsafe($0) }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !kept.isEmpty else { return nil }
        var result = ""
        for character in kept {
            guard result.utf8.count + String(character).utf8.count <= 255 else { break }
            result.append(character)
        }
        return result
    }

    /// A shared text that is a web link: one absolute http or https URL within Baton's limit.
    static func webLink(_ text: String) -> URL? {
        ActivityLimits.webpageURL(fromText: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
