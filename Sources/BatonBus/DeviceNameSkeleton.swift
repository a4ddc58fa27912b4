import Foundation

/// What a device name looks like, reduced so that two names a person could take for each
/// other have the same skeleton (in the spirit of Unicode TR39's skeletons).
///
/// The skeleton is the name without unsafe or invisible characters (``UnsafeCharacters``,
/// ``InvisibleCharacters``), decomposed with compatibility mappings (NFKD: full-width and
/// mathematical letters, ligatures and no-break spaces become plain ones), its look-alike
/// letters replaced by the Latin ones they pass for (`ConfusableLetters`), case folded,
/// `rn` read as `m` and `vv` as `w`, and its runs of white space made one space, none at
/// either end. So `Evil`, `evil`, `Εvil` (a Greek Epsilon), `Evil\u{200B}`, `Evil ` and
/// `EviI` share one skeleton; `Évil` and `Eva` do not.
///
/// batond compares every name another device gives itself this way: a pairing request whose
/// name has the skeleton of this device's name or a paired device's is flagged, and a paired
/// device that says hello or renames itself under such a name is shown with its short id.
public struct DeviceNameSkeleton: Hashable, Sendable {
    /// The skeleton itself: only ever compared, never shown.
    public let text: String

    public init(_ name: some StringProtocol) {
        let visible = InvisibleCharacters.removingAll(from: UnsafeCharacters.cleaned(name))
        let folded = Self.mappingConfusables(in: visible.decomposedStringWithCompatibilityMapping).lowercased()
        // Folding makes new look-alikes of some letters (`I` becomes `i`, which passes for `l`).
        let mapped = Self.mappingConfusables(in: folded.decomposedStringWithCompatibilityMapping)
        text = Self.collapsingWhiteSpace(in: mapped)
            .replacingOccurrences(of: "rn", with: "m")
            .replacingOccurrences(of: "vv", with: "w")
    }

    /// A name as it is taken from another device: without unsafe characters (a line break
    /// becomes a space) or invisible ones (those of emoji sequences kept), with its runs of
    /// white space made one space and none at either end; empty when nothing is left.
    public static func cleaned(_ name: some StringProtocol) -> String {
        collapsingWhiteSpace(in: InvisibleCharacters.removing(from: UnsafeCharacters.cleaned(name)))
    }

    /// Whether `name` could be taken for `other`.
    public static func confusable(_ name: some StringProtocol, _ other: some StringProtocol) -> Bool {
        DeviceNameSkeleton(name) == DeviceNameSkeleton(other)
    }

    private static func mappingConfusables(in text: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            mapped.append(ConfusableLetters.prototype(of: scalar) ?? scalar)
        }
        return String(mapped)
    }

    private static func collapsingWhiteSpace(in text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
