import CGLib

/// Bytes that are not the normal-form GVariant serialization of an `a{sv}` record.
public struct MalformedRecord: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "malformed record: \(reason)" }
}

extension BusValue {
    /// An `a{sv}` record in GVariant's serialized form, little-endian: the body of Baton's
    /// network frames, so peers exchange the same records as the D-Bus API. Entries whose
    /// value cannot be encoded (file descriptors, invalid object paths, see ``BusValueError``)
    /// are left out.
    package static func serialize(record: [String: BusValue]) -> [UInt8] {
        let encodable = { (entry: (key: String, value: BusValue)) in
            (try? EncodedVariant(.dictionary([entry.key: entry.value]))) != nil
        }
        guard let encoded = (try? EncodedVariant(.dictionary(record)))
            ?? (try? EncodedVariant(.dictionary(record.filter(encodable))))
        else { return [] }
        return withExtendedLifetime(encoded) {
            #if _endian(big)
            guard let swapped = g_variant_byteswap(encoded.variant) else { return [] }
            defer { g_variant_unref(swapped) }
            return bytes(of: swapped)
            #else
            return bytes(of: encoded.variant)
            #endif
        }
    }

    private static func bytes(of variant: OpaquePointer) -> [UInt8] {
        let size = Int(g_variant_get_size(variant))
        guard size > 0, let data = g_variant_get_data(variant) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Reads bytes made by ``serialize(record:)``, from outside the process: anything that is
    /// not a record in normal form is refused.
    ///
    /// - Throws: ``MalformedRecord``.
    package static func deserialize(record bytes: [UInt8]) throws -> [String: BusValue] {
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(data) }
        guard let variant = "a{sv}".withCString({ g_variant_ref_sink(g_variant_new_from_bytes(baton_variant_type($0), data, 0)) }) else {
            throw MalformedRecord(reason: "not a record")
        }
        defer { g_variant_unref(variant) }
        #if _endian(big)
        guard let native = g_variant_byteswap(variant) else { throw MalformedRecord(reason: "not a record") }
        defer { g_variant_unref(native) }
        #else
        let native = variant
        #endif
        guard g_variant_is_normal_form(native) != 0 else {
            throw MalformedRecord(reason: "not in GVariant normal form")
        }
        do {
            guard case .dictionary(let record) = try BusValue(variant: native) else {
                throw MalformedRecord(reason: "not a record")
            }
            return record
        } catch let error as MalformedRecord {
            throw error
        } catch {
            throw MalformedRecord(reason: "\(error)")
        }
    }
}
