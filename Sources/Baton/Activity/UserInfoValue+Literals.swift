import Foundation

extension UserInfoValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension UserInfoValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension UserInfoValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension UserInfoValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension UserInfoValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: UserInfoValue...) { self = .array(elements) }
}

extension UserInfoValue: ExpressibleByDictionaryLiteral {
    /// Builds a ``dictionary(_:)``; when a key repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, UserInfoValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension UserInfoValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}
