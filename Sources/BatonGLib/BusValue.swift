/// A D-Bus value of the types Baton's interfaces use, as a plain Swift value that can cross
/// threads: what ``BusConnection`` sends and receives.
public indirect enum BusValue: Hashable, Sendable {
    case string(String)
    case bool(Bool)
    case int32(Int32)
    /// `q`: as in ports.
    case uint16(UInt16)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    /// `ay`: a byte array.
    case bytes([UInt8])
    /// `as`: an array of strings.
    case strings([String])
    /// `aay`: an array of byte arrays, as in DNS-SD TXT records.
    case byteArrays([[UInt8]])
    /// `a{sv}`: a dictionary of variants, D-Bus's usual extensible record.
    case dictionary([String: BusValue])
    /// `aa{sv}`: a list of such records.
    case dictionaries([[String: BusValue]])
    /// A struct of values, like a method's arguments.
    case tuple([BusValue])

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .string: return "s"
        case .bool: return "b"
        case .int32: return "i"
        case .uint16: return "q"
        case .uint32: return "u"
        case .int64: return "x"
        case .double: return "d"
        case .bytes: return "ay"
        case .strings: return "as"
        case .byteArrays: return "aay"
        case .dictionary: return "a{sv}"
        case .dictionaries: return "aa{sv}"
        case .tuple(let values): return "(" + values.map(\.signature).joined() + ")"
        }
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    public var strings: [String]? { if case .strings(let value) = self { value } else { nil } }
    public var byteArrays: [[UInt8]]? { if case .byteArrays(let value) = self { value } else { nil } }
    public var dictionary: [String: BusValue]? { if case .dictionary(let value) = self { value } else { nil } }
    public var dictionaries: [[String: BusValue]]? { if case .dictionaries(let value) = self { value } else { nil } }

    /// Any integer case as an `Int64`.
    public var integer: Int64? {
        switch self {
        case .int32(let value): return Int64(value)
        case .uint16(let value): return Int64(value)
        case .uint32(let value): return Int64(value)
        case .int64(let value): return value
        default: return nil
        }
    }

    /// A number as a `Double`: the double case, or any integer.
    public var number: Double? {
        if case .double(let value) = self { return value }
        return integer.map(Double.init)
    }
}

extension Array where Element == BusValue {
    /// The value at `index`, or `nil` past the end: for reading arguments without trapping.
    public func at(_ index: Int) -> BusValue? {
        indices.contains(index) ? self[index] : nil
    }
}
