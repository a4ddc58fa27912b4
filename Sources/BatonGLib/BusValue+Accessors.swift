extension BusValue {
    /// The text of a string, an object path or a type signature, so code that reads object
    /// paths as strings keeps working.
    public var string: String? {
        switch self {
        case .string(let value), .objectPath(let value), .typeSignature(let value): return value
        default: return nil
        }
    }

    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    public var strings: [String]? { if case .strings(let value) = self { value } else { nil } }
    public var byteArrays: [[UInt8]]? { if case .byteArrays(let value) = self { value } else { nil } }
    public var dictionaries: [[String: BusValue]]? { if case .dictionaries(let value) = self { value } else { nil } }

    /// The path of an object path (`o`).
    public var objectPath: String? { if case .objectPath(let value) = self { value } else { nil } }
    /// The value inside a variant (`v`), one level.
    public var variant: BusValue? { if case .variant(let value) = self { value } else { nil } }
    /// The members of a struct.
    public var tuple: [BusValue]? { if case .tuple(let values) = self { values } else { nil } }
    /// The descriptor of an `h`.
    public var fileDescriptor: BusFileDescriptor? { if case .fileDescriptor(let value) = self { value } else { nil } }

    /// A record keyed by text: an `a{sv}` (values unwrapped), or any dictionary keyed by
    /// strings, object paths or signatures, such as `a{ss}` or the `a{oa{sa{sv}}}` of an
    /// object manager; variant values of the latter are unwrapped one level too.
    public var dictionary: [String: BusValue]? {
        switch self {
        case .dictionary(let value):
            return value
        case .dict(let keyType, let valueType, let entries) where ["s", "o", "g"].contains(keyType):
            var result: [String: BusValue] = [:]
            for (key, value) in entries {
                guard let text = key.string else { return nil }
                result[text] = valueType == "v" ? value.variant ?? value : value
            }
            return result
        default:
            return nil
        }
    }

    /// The entries of any dictionary: a ``dict(keyType:valueType:_:)``'s as they are, an
    /// `a{sv}`'s keyed by ``string(_:)`` with the values unwrapped.
    public var entries: [BusValue: BusValue]? {
        switch self {
        case .dict(_, _, let entries):
            return entries
        case .dictionary(let value):
            return Dictionary(uniqueKeysWithValues: value.map { (BusValue.string($0.key), $0.value) })
        default:
            return nil
        }
    }

    /// The elements of any array but a dictionary: an ``array(elementType:_:)``'s, and those
    /// of `ay`, `as`, `aay` and `aa{sv}` as values (`.byte`, `.string`, `.bytes`, `.dictionary`).
    public var array: [BusValue]? {
        switch self {
        case .array(_, let elements): return elements
        case .bytes(let value): return value.map(BusValue.byte)
        case .strings(let value): return value.map(BusValue.string)
        case .byteArrays(let value): return value.map(BusValue.bytes)
        case .dictionaries(let value): return value.map(BusValue.dictionary)
        default: return nil
        }
    }

    /// Any integer case as an `Int64`; a `t` above `Int64.max` is `nil`.
    public var integer: Int64? {
        switch self {
        case .byte(let value): return Int64(value)
        case .int16(let value): return Int64(value)
        case .int32(let value): return Int64(value)
        case .uint16(let value): return Int64(value)
        case .uint32(let value): return Int64(value)
        case .int64(let value): return value
        case .uint64(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// A number as a `Double`: the double case, or any integer.
    public var number: Double? {
        switch self {
        case .double(let value): return value
        case .uint64(let value): return Double(value)
        default: return integer.map(Double.init)
        }
    }
}
