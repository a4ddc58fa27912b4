import CGLib

/// A `GVariant` of a type ``BusValue`` does not model.
public struct UnsupportedVariantType: Error, Hashable, Sendable, CustomStringConvertible {
    /// The variant's D-Bus type signature.
    public let signature: String
    public var description: String { "unsupported D-Bus value of type \(signature)" }
}

extension BusValue {
    /// A new floating `GVariant` holding the value: pass it to a GLib call that sinks it.
    package func makeVariant() -> OpaquePointer {
        switch self {
        case .string(let value): return g_variant_new_string(value)
        case .bool(let value): return g_variant_new_boolean(value ? 1 : 0)
        case .int32(let value): return g_variant_new_int32(value)
        case .uint16(let value): return g_variant_new_uint16(value)
        case .uint32(let value): return g_variant_new_uint32(value)
        case .int64(let value): return g_variant_new_int64(gint64(value))
        case .double(let value): return g_variant_new_double(value)
        case .bytes(let value):
            return value.withUnsafeBufferPointer {
                g_variant_new_fixed_array(baton_variant_type_byte(), $0.baseAddress, gsize($0.count), 1)
            }
        case .strings(let value):
            return Self.array(of: "s", value.map { g_variant_new_string($0) })
        case .byteArrays(let value):
            return Self.array(of: "ay", value.map { BusValue.bytes($0).makeVariant() })
        case .dictionary(let value):
            return Self.dictionaryVariant(value)
        case .dictionaries(let value):
            return Self.array(of: "a{sv}", value.map(Self.dictionaryVariant))
        case .tuple(let values):
            var children: [OpaquePointer?] = values.map { $0.makeVariant() }
            return g_variant_new_tuple(&children, gsize(children.count))
        }
    }

    private static func dictionaryVariant(_ dictionary: [String: BusValue]) -> OpaquePointer {
        let entries = dictionary.sorted { $0.key < $1.key }.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value.makeVariant()))!
        }
        return array(of: "{sv}", entries)
    }

    private static func array(of elementSignature: String, _ children: [OpaquePointer?]) -> OpaquePointer {
        var children = children
        return elementSignature.withCString { signature in
            g_variant_new_array(baton_variant_type(signature), &children, gsize(children.count))
        }
    }

    /// Reads a `GVariant` (not consumed). Variants (`v`) are unwrapped; entries of an
    /// `a{sv}` whose value has a type the enum does not model are skipped, so records can grow.
    ///
    /// - Throws: ``UnsupportedVariantType`` for a type the enum does not model.
    package init(variant: OpaquePointer) throws {
        let signature = String(cString: g_variant_get_type_string(variant))
        switch signature {
        case "s", "o", "g": self = .string(String(cString: g_variant_get_string(variant, nil)))
        case "b": self = .bool(g_variant_get_boolean(variant) != 0)
        case "i": self = .int32(g_variant_get_int32(variant))
        case "q": self = .uint16(g_variant_get_uint16(variant))
        case "u": self = .uint32(g_variant_get_uint32(variant))
        case "x": self = .int64(Int64(g_variant_get_int64(variant)))
        case "d": self = .double(g_variant_get_double(variant))
        case "ay":
            var count: gsize = 0
            guard let bytes = g_variant_get_fixed_array(variant, &count, 1), count > 0 else {
                self = .bytes([])
                return
            }
            self = .bytes(Array(UnsafeRawBufferPointer(start: bytes, count: Int(count))))
        case "as":
            self = .strings(try Self.children(of: variant).map { child in
                guard case .string(let value) = child else { throw UnsupportedVariantType(signature: signature) }
                return value
            })
        case "aay":
            self = .byteArrays(try Self.eachChild(of: variant) { child in
                guard case .bytes(let value) = try BusValue(variant: child) else {
                    throw UnsupportedVariantType(signature: signature)
                }
                return value
            })
        case "a{sv}":
            self = .dictionary(try Self.readDictionary(variant))
        case "aa{sv}":
            self = .dictionaries(try Self.eachChild(of: variant) { try Self.readDictionary($0) })
        case "v":
            guard let inner = g_variant_get_variant(variant) else { throw UnsupportedVariantType(signature: signature) }
            defer { g_variant_unref(inner) }
            self = try BusValue(variant: inner)
        default:
            guard signature.hasPrefix("(") else { throw UnsupportedVariantType(signature: signature) }
            self = .tuple(try Self.children(of: variant))
        }
    }

    private static func readDictionary(_ variant: OpaquePointer) throws -> [String: BusValue] {
        var dictionary: [String: BusValue] = [:]
        let entries = try eachChild(of: variant) { entry in
            try? eachChild(of: entry) { try BusValue(variant: $0) }
        }
        for case let pair? in entries where pair.count == 2 {
            guard let key = pair[0].string else { continue }
            dictionary[key] = pair[1]
        }
        return dictionary
    }

    private static func children(of variant: OpaquePointer) throws -> [BusValue] {
        try eachChild(of: variant) { try BusValue(variant: $0) }
    }

    private static func eachChild<T>(of variant: OpaquePointer, _ body: (OpaquePointer) throws -> T) throws -> [T] {
        let count = g_variant_n_children(variant)
        var result: [T] = []
        result.reserveCapacity(Int(count))
        for index in 0..<count {
            guard let child = g_variant_get_child_value(variant, index) else { continue }
            defer { g_variant_unref(child) }
            result.append(try body(child))
        }
        return result
    }
}
