import Foundation

/// `UserInfoValue` reads and writes plain JSON-shaped values.
///
/// Encoding maps the richer cases onto what `JSONEncoder` produces for the same Foundation
/// types by default, so that a `Codable` type holding a `Date`, `Data`, `URL` or `UUID`
/// round-trips through ``UserActivity/encodeUserInfo(_:)`` and
/// ``UserActivity/decodeUserInfo(_:)``:
/// a date becomes its seconds since 2001-01-01 (a number), data becomes Base64 text,
/// a URL its absolute string, a UUID its string. Decoding yields only `null`, `bool`, `int`,
/// `double`, `string`, `array` and `dictionary`.
extension UserInfoValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([UserInfoValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: UserInfoValue].self) {
            self = .dictionary(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a JSON value that userInfo can hold")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .date(let value): try container.encode(value.timeIntervalSinceReferenceDate)
        case .data(let value): try container.encode(value.base64EncodedString())
        case .url(let value): try container.encode(value.absoluteString)
        case .uuid(let value): try container.encode(value.uuidString)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}
