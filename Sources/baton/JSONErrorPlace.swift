import BatonBus
import Foundation

/// Where and what is wrong in a JSON document, in words for an error message.
enum JSONErrorPlace {
    /// What `JSONSerialization` found wrong in `data`, as ` at line L, column C: what`, or
    /// `: what` when it names no place.
    static func describe(_ error: any Error, in data: Data) -> String {
        let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        guard let range = detail.range(of: #" around (line \d+, column \d+|character \d+)\.?"#, options: .regularExpression)
        else {
            return ": " + lowercasedFirst(detail)
        }
        let what = lowercasedFirst(String(detail[..<range.lowerBound]))
        let place = detail[range]
        if place.contains("line") {
            let numbers = place.split(whereSeparator: { !$0.isNumber })
            return " at line \(numbers.first ?? "?"), column \(numbers.dropFirst().first ?? "?"): \(what)"
        }
        guard let offset = place.split(whereSeparator: { !$0.isNumber }).first.flatMap({ Int($0) }) else {
            return ": " + what
        }
        let before = data.prefix(max(0, min(offset, data.count)))
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
        let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        return " at line \(line), column \(column): \(what)"
    }

    /// What a JSON value is, with its article: "an array", "a string", "null", ...
    static func kind(of value: Any) -> String {
        switch value {
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case is String: return "a string"
        case is NSNull: return "null"
        case let number as NSNumber: return String(cString: number.objCType) == "c" ? "true or false" : "a number"
        default: return "not an object"
        }
    }

    /// A field's place in the document, quoted: `"userInfo.to"`, `"type"`.
    static func field(_ path: [any CodingKey]) -> String {
        let keys = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
        return "\"" + Excerpt.of(keys.joined(separator: ".")) + "\""
    }

    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
