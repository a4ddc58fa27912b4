import Baton
import CGLib
import Foundation

/// `userInfo` as the `GVariant` `a{sv}` of `BatonActivity:user-info`, both ways.
///
/// Strings, booleans, integers (`x`), doubles, bytes (`ay`), arrays (`av`), dictionaries
/// (`a{sv}`) and null (`mv`, nothing) keep their type; a URL or UUID becomes a string and a
/// date seconds since 1970 (`d`), which GVariant has no type for. From a GVariant, every
/// integer type is an integer, object paths and signatures strings, `v` its content, a
/// maybe its content or null, any array an array and any dictionary with string keys a
/// dictionary; a tuple becomes an array.
enum UserInfoVariant {
    /// A new floating `a{sv}` holding `userInfo`.
    static func variant(_ userInfo: [String: UserInfoValue]) -> OpaquePointer {
        let entries = userInfo.sorted { $0.key < $1.key }.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(variant(value)))
        }
        return array(of: "{sv}", entries)
    }

    /// A new floating variant holding `value`.
    static func variant(_ value: UserInfoValue) -> OpaquePointer {
        switch value {
        case .string(let text): return g_variant_new_string(text)
        case .int(let number): return g_variant_new_int64(gint64(number))
        case .double(let number): return g_variant_new_double(number)
        case .bool(let flag): return g_variant_new_boolean(flag ? 1 : 0)
        case .date(let date): return g_variant_new_double(date.timeIntervalSince1970)
        case .data(let bytes):
            return bytes.withUnsafeBytes {
                g_variant_new_fixed_array(baton_variant_type_byte(), $0.baseAddress, gsize($0.count), 1)
            }
        case .url(let url): return g_variant_new_string(url.absoluteString)
        case .uuid(let uuid): return g_variant_new_string(uuid.uuidString)
        case .array(let elements): return array(of: "v", elements.map { g_variant_new_variant(variant($0)) })
        case .dictionary(let record): return variant(record)
        case .null: return g_variant_new_maybe(baton_variant_type("v"), nil)
        }
    }

    private static func array(of elementType: String, _ children: [OpaquePointer?]) -> OpaquePointer {
        var children = children
        return g_variant_new_array(baton_variant_type(elementType), &children, gsize(children.count))
    }

    /// The `userInfo` an `a{s*}` holds; entries of other variants are dropped (empty for a
    /// variant that is no dictionary).
    static func userInfo(_ variant: OpaquePointer) -> [String: UserInfoValue] {
        guard case .dictionary(let record) = value(variant) else { return [:] }
        return record
    }

    /// The value `variant` holds.
    static func value(_ variant: OpaquePointer) -> UserInfoValue {
        let type = String(cString: g_variant_get_type_string(variant))
        switch type.first {
        case "s", "o", "g": return .string(String(cString: g_variant_get_string(variant, nil)))
        case "b": return .bool(g_variant_get_boolean(variant) != 0)
        case "y": return .int(Int(g_variant_get_byte(variant)))
        case "n": return .int(Int(g_variant_get_int16(variant)))
        case "q": return .int(Int(g_variant_get_uint16(variant)))
        case "i": return .int(Int(g_variant_get_int32(variant)))
        case "u": return .int(Int(g_variant_get_uint32(variant)))
        case "x": return .int(Int(g_variant_get_int64(variant)))
        case "t":
            let number = g_variant_get_uint64(variant)
            return number <= UInt64(Int.max) ? .int(Int(number)) : .double(Double(number))
        case "h": return .int(Int(g_variant_get_handle(variant)))
        case "d": return .double(g_variant_get_double(variant))
        case "v", "m":
            // A maybe with nothing in it is null.
            guard g_variant_n_children(variant) > 0, let inner = g_variant_get_child_value(variant, 0) else { return .null }
            defer { g_variant_unref(inner) }
            return value(inner)
        case "a" where type == "ay":
            var count: gsize = 0
            guard let bytes = g_variant_get_fixed_array(variant, &count, 1) else { return .data(Data()) }
            return .data(Data(bytes: bytes, count: Int(count)))
        case "a" where type.hasPrefix("a{s") || type.hasPrefix("a{o") || type.hasPrefix("a{g"):
            var record: [String: UserInfoValue] = [:]
            forEachChild(of: variant) { entry in
                guard let key = g_variant_get_child_value(entry, 0) else { return }
                defer { g_variant_unref(key) }
                guard let member = g_variant_get_child_value(entry, 1) else { return }
                defer { g_variant_unref(member) }
                record[String(cString: g_variant_get_string(key, nil))] = value(member)
            }
            return .dictionary(record)
        default:
            // Arrays, tuples and dictionaries with other keys: their members in order.
            var elements: [UserInfoValue] = []
            forEachChild(of: variant) { elements.append(value($0)) }
            return .array(elements)
        }
    }

    /// Runs `body` with each child of a container, released after it.
    private static func forEachChild(of variant: OpaquePointer, _ body: (OpaquePointer) -> Void) {
        guard g_variant_is_container(variant) != 0 else { return }
        for index in 0..<g_variant_n_children(variant) {
            guard let child = g_variant_get_child_value(variant, index) else { continue }
            body(child)
            g_variant_unref(child)
        }
    }
}
