import Baton
import BatonBus
import BatonGLib
import Foundation

/// Prints values as JSON: sorted keys, pretty, one document per command.
enum JSONOutput {
    static func print(_ object: Any) throws {
        Swift.print(try text(object))
    }

    /// `object` as JSON text whose strings hold exactly what `object` holds, with every
    /// ``UnsafeCharacters`` character escaped as `\uXXXX`, so that no control character,
    /// bidirectional control or line separator reaches the terminal raw.
    static func text(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys,
                                                                                .withoutEscapingSlashes])
        // Outside strings JSON text is ASCII without controls but for the pretty-printing
        // line breaks, which stay; every other unsafe character is inside a string, where
        // its escape stands for it. All of them are in the Basic Multilingual Plane.
        var escaped = ""
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            if scalar != "\n", UnsafeCharacters.isUnsafe(scalar) {
                escaped += String(format: "\\u%04x", scalar.value)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A D-Bus value as a JSON value (bytes become Base64 text).
    static func object(_ value: BusValue) -> Any {
        switch value {
        case .string(let text), .objectPath(let text), .typeSignature(let text): return text
        case .bool(let flag): return flag
        case .byte(let number): return number
        case .int16(let number): return number
        case .int32(let number): return number
        case .uint16(let number): return number
        case .uint32(let number): return number
        case .int64(let number): return number
        case .uint64(let number): return number
        case .double(let number): return number.isFinite ? number : String(number)
        case .bytes(let bytes): return Data(bytes).base64EncodedString()
        case .strings(let texts): return texts
        case .byteArrays(let arrays): return arrays.map { Data($0).base64EncodedString() }
        case .dictionary(let record): return record.mapValues(object)
        case .dictionaries(let records): return records.map { $0.mapValues(object) }
        case .tuple(let values): return values.map(object)
        case .variant(let inner): return object(inner)
        case .array(_, let elements): return elements.map(object)
        case .dict(_, _, let entries):
            return value.dictionary?.mapValues(object) ?? entries.map { [object($0.key), object($0.value)] }
        case .fileDescriptor: return NSNull()
        }
    }

    /// A payload as the JSON `baton inspect` prints, in the shape `baton continue --file` reads.
    static func object(_ payload: UserActivityPayload) throws -> [String: Any] {
        let info = try JSONSerialization.jsonObject(with: JSONEncoder().encode(payload.userInfo))
        var object: [String: Any] = [
            "type": payload.activityType, "userInfo": info, "eligible": payload.isEligibleForHandoff,
            "keywords": payload.keywords.sorted(),
        ]
        if let title = payload.title { object["title"] = title }
        if let url = payload.webpageURL { object["webpageURL"] = url.absoluteString }
        if let date = payload.expirationDate { object["expirationDate"] = date.timeIntervalSince1970 }
        return object
    }
}
