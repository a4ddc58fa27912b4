/// Letters of other scripts that look like Latin ones, each with the lowercase Latin letter it
/// passes for: the common part of Unicode TR39's confusables for Greek, Cyrillic and Armenian
/// (``DeviceNameSkeleton`` maps them before it folds case, since a Cyrillic `В` looks like `B`
/// while its lowercase `в` does not look like `b`), and the letters, digits and strokes read
/// as `o` or `l` (`0`; `1`, `I`, `i`, `|`: since case is folded, `I` and `i` go together).
enum ConfusableLetters {
    /// The Latin letter `scalar` passes for, if it passes for one.
    static func prototype(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        table[scalar.value]
    }

    private static let table: [UInt32: Unicode.Scalar] = {
        var table: [UInt32: Unicode.Scalar] = [:]
        for (letters, latin) in groups {
            for scalar in letters.unicodeScalars { table[scalar.value] = latin }
        }
        return table
    }()

    /// Look-alikes, by the Latin letter they pass for.
    private static let groups: [(String, Unicode.Scalar)] = [
        // Greek capitals, Cyrillic capitals and small letters, Greek small letters, Armenian,
        // Latin letters of other shapes. A letter with a mark (Ё) is its letter and the mark
        // once decomposed, so only bare letters are listed.
        ("ΑАаα\u{0251}", "a"),
        ("ΒВЬь", "b"),
        ("СсϹϲ", "c"),
        ("Ԁԁ", "d"),
        ("ΕЕе", "e"),
        ("\u{0261}", "g"),
        ("ΗНҺһհ", "h"),
        ("ΙІіӀӏιıi|1", "l"),
        ("Јјϳ", "j"),
        ("ΚКκ", "k"),
        ("ΜМ", "m"),
        ("Νոռ", "n"),
        ("ΟОоοօ0", "o"),
        ("ΡРрρ", "p"),
        ("Ԛԛ", "q"),
        ("Ѕѕ", "s"),
        ("ΤТ", "t"),
        ("υս", "u"),
        ("νѵ", "v"),
        ("Ԝԝѡω", "w"),
        ("ΧХхχ", "x"),
        ("ΥУуҮүγ", "y"),
        ("Ζ", "z"),
        ("З", "3"),
    ]
}
