/// A `GVariant` of a type ``BusValue`` does not model: GVariant's maybe types (`m…`) and
/// dictionary entries outside an array, which D-Bus does not have.
public struct UnsupportedVariantType: Error, Hashable, Sendable, CustomStringConvertible {
    /// The variant's D-Bus type signature.
    public let signature: String
    public var description: String { "unsupported D-Bus value of type \(signature)" }
}

/// Why a ``BusValue`` cannot be sent, or a `GVariant` cannot be read as one.
public enum BusValueError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An ``BusValue/objectPath(_:)`` that is not a valid object path.
    case invalidObjectPath(String)
    /// A ``BusValue/typeSignature(_:)`` that is not a valid D-Bus signature.
    case invalidSignature(String)
    /// An element, key or value type that is not a single complete D-Bus type (or, for a
    /// key, not a basic type).
    case invalidType(String)
    /// A member whose type is not the one its array or dictionary declares.
    case typeMismatch(expected: String, found: String)
    /// Containers nested deeper than ``BusValue/maximumDepth``.
    case tooDeep
    /// A file descriptor that cannot be sent (already taken or closed, or no descriptor list
    /// goes with the value, as in signals and network records) or received (not in the
    /// message's descriptor list).
    case fileDescriptorUnavailable(String)

    public var description: String {
        switch self {
        case .invalidObjectPath(let path): return "not a D-Bus object path: \(Self.quoted(path))"
        case .invalidSignature(let signature): return "not a D-Bus signature: \(Self.quoted(signature))"
        case .invalidType(let type): return "not a single complete D-Bus type: \(Self.quoted(type))"
        case .typeMismatch(let expected, let found): return "a value of type \(found) where \(expected) belongs"
        case .tooDeep: return "D-Bus values nested deeper than \(BusValue.maximumDepth) containers"
        case .fileDescriptorUnavailable(let reason): return "file descriptor unavailable: \(reason)"
        }
    }

    /// Outside text, quoted and cut to 80 characters.
    private static func quoted(_ text: String) -> String {
        let cut = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return "\"" + cut.debugDescription.dropFirst().dropLast() + "\""
    }
}
