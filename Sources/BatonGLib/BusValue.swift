/// A D-Bus value as a plain Swift value that can cross threads: what ``BusConnection``
/// sends and receives.
///
/// Every D-Bus type has a case. A few common shapes have cases of their own (`ay`, `as`,
/// `aay`, `a{sv}`, `aa{sv}`), and reading a `GVariant` always gives those for them; any
/// other array is ``array(elementType:_:)`` and any other dictionary
/// ``dict(keyType:valueType:_:)``. Building those shapes through the general cases sends
/// the same bytes, but reads back as the specific case.
///
/// Values are checked when they are sent, not when they are made: an invalid object path,
/// an array element of the wrong type or nesting deeper than ``maximumDepth`` is a
/// ``BusValueError`` then.
public indirect enum BusValue: Hashable, Sendable {
    case string(String)
    case bool(Bool)
    /// `y`.
    case byte(UInt8)
    /// `n`.
    case int16(Int16)
    case int32(Int32)
    /// `q`: as in ports.
    case uint16(UInt16)
    case uint32(UInt32)
    case int64(Int64)
    /// `t`.
    case uint64(UInt64)
    case double(Double)
    /// `o`: an object path such as `/org/baton/Daemon`, checked with
    /// `g_variant_is_object_path` when sent.
    case objectPath(String)
    /// `g`: a type signature as a value, such as `a{sv}`.
    case typeSignature(String)
    /// `v`: a value that carries its own type.
    case variant(BusValue)
    /// `h`: an open file descriptor, passed beside the message in its `GUnixFDList`.
    case fileDescriptor(BusFileDescriptor)
    /// `ay`: a byte array.
    case bytes([UInt8])
    /// `as`: an array of strings.
    case strings([String])
    /// `aay`: an array of byte arrays, as in DNS-SD TXT records.
    case byteArrays([[UInt8]])
    /// `a{sv}`: a dictionary of variants, D-Bus's usual extensible record. The values are
    /// stored unwrapped: `["x": .int32(1)]` is sent as `{'x': <1>}`.
    case dictionary([String: BusValue])
    /// `aa{sv}`: a list of such records.
    case dictionaries([[String: BusValue]])
    /// Any other array: `ao`, `av`, `a(bsav)`, `aas`. Every element must have the type
    /// `elementType`, a single complete D-Bus type; the type also says what an empty array is.
    case array(elementType: String, _ elements: [BusValue])
    /// Any other dictionary, `a{…}`: keys of the basic type `keyType` (such as `s` or `o`),
    /// values of the single complete type `valueType`, as in `a{ss}` or `a{oa{sa{sv}}}`.
    /// Sent in the order of the keys.
    case dict(keyType: String, valueType: String, _ entries: [BusValue: BusValue])
    /// A struct of values, like a method's arguments.
    case tuple([BusValue])

    /// The deepest nesting of containers (arrays, dictionary entries, structs, variants) a
    /// value may have, as the D-Bus specification allows: deeper values are refused both
    /// ways, so input from the bus never recurses without bound.
    public static let maximumDepth = 64

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .string: return "s"
        case .bool: return "b"
        case .byte: return "y"
        case .int16: return "n"
        case .int32: return "i"
        case .uint16: return "q"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .objectPath: return "o"
        case .typeSignature: return "g"
        case .variant: return "v"
        case .fileDescriptor: return "h"
        case .bytes: return "ay"
        case .strings: return "as"
        case .byteArrays: return "aay"
        case .dictionary: return "a{sv}"
        case .dictionaries: return "aa{sv}"
        case .array(let elementType, _): return "a" + elementType
        case .dict(let keyType, let valueType, _): return "a{" + keyType + valueType + "}"
        case .tuple(let values): return "(" + values.map(\.signature).joined() + ")"
        }
    }
}

extension Array where Element == BusValue {
    /// The value at `index`, or `nil` past the end: for reading arguments without trapping.
    public func at(_ index: Int) -> BusValue? {
        indices.contains(index) ? self[index] : nil
    }
}
