import Foundation

/// One value of a ``UserActivity``'s `userInfo`: the property-list-like types Handoff carries.
///
/// The type is built from literals, so `["to": "bob@example.org", "cursor": 42]` is a valid
/// `userInfo`. Read a value back with the typed accessors, such as ``stringValue`` or ``intValue``.
public enum UserInfoValue: Hashable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case url(URL)
    case uuid(UUID)
    case array([UserInfoValue])
    case dictionary([String: UserInfoValue])
    case null
}

extension UserInfoValue {
    /// The string, if this value is ``string(_:)``.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this value is ``int(_:)``.
    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number, if this value is ``double(_:)`` or ``int(_:)``.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }

    /// The Boolean, if this value is ``bool(_:)``.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The date, if this value is ``date(_:)``.
    public var dateValue: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The bytes, if this value is ``data(_:)``.
    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The URL, if this value is ``url(_:)``, or a ``string(_:)`` that parses as an absolute URL.
    public var urlValue: URL? {
        switch self {
        case .url(let value): return value
        case .string(let value): return URL(string: value).flatMap { $0.scheme == nil ? nil : $0 }
        default: return nil
        }
    }

    /// The UUID, if this value is ``uuid(_:)``, or a ``string(_:)`` holding one.
    public var uuidValue: UUID? {
        switch self {
        case .uuid(let value): return value
        case .string(let value): return UUID(uuidString: value)
        default: return nil
        }
    }

    /// The elements, if this value is ``array(_:)``.
    public var arrayValue: [UserInfoValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries, if this value is ``dictionary(_:)``.
    public var dictionaryValue: [String: UserInfoValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// Whether this value is ``null``.
    public var isNull: Bool { self == .null }
}
