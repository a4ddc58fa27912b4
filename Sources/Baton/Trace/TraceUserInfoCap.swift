import Foundation

/// How much of a `userInfo` a trace line holds: an app that keeps a whole document in its
/// activity would otherwise write it all at every update pass (one per keystroke, say).
///
/// A string is cut to its first ``maximumStringBytes`` bytes (UTF-8) and `…`, a data value to
/// its first ``maximumDataBytes`` bytes, a list or dictionary to its first
/// ``maximumEntries`` entries (a dictionary's keys in order). When what is left still encodes
/// to more than ``maximumEncodedBytes``, the line holds only the sorted keys
/// (`userInfoKeys`, at most ``maximumEntries``). A line with anything cut says
/// `"userInfoCut": true`.
enum TraceUserInfoCap {
    /// The longest string kept whole: 1 KiB.
    static let maximumStringBytes = 1024
    /// The largest data value kept whole: 768 bytes, 1 KiB in base64.
    static let maximumDataBytes = 768
    /// The most entries of a list or dictionary kept.
    static let maximumEntries = 100
    /// The most a line's `userInfo` takes, encoded: 16 KiB.
    static let maximumEncodedBytes = 16 * 1024

    /// `userInfo` as a trace line holds it: cut values, or only its keys, and whether
    /// anything was cut.
    static func capped(_ userInfo: [String: UserInfoValue])
        -> (userInfo: [String: UserInfoValue]?, keys: [String]?, cut: Bool) {
        var cut = false
        let trimmed = trimDictionary(userInfo, cut: &cut)
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        if let encoded = try? encoder.encode(trimmed), encoded.count <= maximumEncodedBytes {
            return (trimmed, nil, cut)
        }
        return (nil, Array(userInfo.keys.sorted().prefix(maximumEntries)), true)
    }

    private static func trimDictionary(_ dictionary: [String: UserInfoValue], cut: inout Bool) -> [String: UserInfoValue] {
        var kept = dictionary
        if dictionary.count > maximumEntries {
            cut = true
            kept = [:]
            for key in dictionary.keys.sorted().prefix(maximumEntries) { kept[key] = dictionary[key] }
        }
        return kept.mapValues { trim($0, cut: &cut) }
    }

    private static func trim(_ value: UserInfoValue, cut: inout Bool) -> UserInfoValue {
        switch value {
        case .string(let text) where text.utf8.count > maximumStringBytes:
            cut = true
            // The last whole character that ends within the limit.
            var end = text.utf8.index(text.utf8.startIndex, offsetBy: maximumStringBytes)
            while end > text.startIndex, String.Index(end, within: text) == nil {
                end = text.utf8.index(before: end)
            }
            return .string(text[..<end] + "…")
        case .data(let data) where data.count > maximumDataBytes:
            cut = true
            return .data(data.prefix(maximumDataBytes))
        case .array(let values):
            if values.count > maximumEntries { cut = true }
            return .array(values.prefix(maximumEntries).map { trim($0, cut: &cut) })
        case .dictionary(let dictionary):
            return .dictionary(trimDictionary(dictionary, cut: &cut))
        default:
            return value
        }
    }
}
