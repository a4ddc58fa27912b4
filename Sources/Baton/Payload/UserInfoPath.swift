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
}
