/// A value's place in a `userInfo` dictionary, in words for an error message:
/// `userInfo["draft"]["to"][2]`.
public enum UserInfoPath {
    /// One step down: a dictionary's key or an array's index.
    public enum Step: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The longest key shown whole, in characters; a longer one is cut and ends in "…".
    public static let maximumKeyLength = 64

    /// `path` as `userInfo["key"][index]…`: keys quoted, with `"` and `\` escaped, and cut
    /// after ``maximumKeyLength`` characters.
    public static func describe(_ path: [Step]) -> String {
        var text = "userInfo"
        for step in path {
            switch step {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                let shown = key.count > maximumKeyLength ? key.prefix(maximumKeyLength) + "…" : Substring(key)
                var escaped = ""
                for character in shown {
                    if character == "\"" || character == "\\" { escaped.append("\\") }
                    escaped.append(character)
                }
                text += "[\"\(escaped)\"]"
            }
        }
        return text
    }

    /// The first place in `value`, at `depth`, where `reason` finds something wrong (it is
    /// given each value and its depth, `value` itself first), and what: the steps down to it,
    /// last step first, or nil when nothing is. The steps are gathered on the way back up, so
    /// a value with nothing wrong costs the walk and no allocation. Dictionaries are walked
    /// in their own order.
    public static func firstPlace(in value: UserInfoValue, depth: Int = 0,
                                  where reason: (UserInfoValue, Int) -> String?) -> (steps: [Step], reason: String)? {
        if let found = reason(value, depth) { return ([], found) }
        switch value {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if var place = firstPlace(in: element, depth: depth + 1, where: reason) {
                    place.steps.append(.index(index))
                    return place
                }
            }
        case .dictionary(let entries):
            for (key, entry) in entries {
                if var place = firstPlace(in: entry, depth: depth + 1, where: reason) {
                    place.steps.append(.key(key))
                    return place
                }
            }
        default:
            break
        }
        return nil
    }
}
