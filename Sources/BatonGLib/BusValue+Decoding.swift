import CGLib

extension BusValue {
    /// Reads a `GVariant` (not consumed), from this process or any other: whatever it holds
    /// gives a value or an error, never a trap.
    ///
    /// `ay`, `as`, `aay`, `a{sv}` and `aa{sv}` give their own cases; the values of an `a{sv}`
    /// are unwrapped from their variants, and entries whose value has a type the enum does not
    /// model are skipped, so records can grow. A variant (`v`) elsewhere gives
    /// ``variant(_:)``. A handle (`h`) is resolved in `fileDescriptors`, the message's
    /// descriptor list, into a ``BusFileDescriptor`` of its own.
    ///
    /// - Throws: ``UnsupportedVariantType`` for a type D-Bus does not have (GVariant's maybe
    ///   types, empty structs, dictionary entries outside an array); ``BusValueError`` for
    ///   nesting deeper than ``maximumDepth``, a handle without its descriptor, or a signature
    ///   value D-Bus does not allow. Whatever is read can be sent back as it is.
    package init(variant: OpaquePointer, fileDescriptors: UnsafeMutablePointer<GUnixFDList>? = nil) throws {
        self = try VariantDecoder(fileDescriptors: fileDescriptors).read(variant, depth: 0)
    }

    /// The members of a message body, a tuple (`()` when there are none), each read from
    /// depth 0 as D-Bus counts.
    ///
    /// - Throws: as ``init(variant:fileDescriptors:)``; ``UnsupportedVariantType`` when
    ///   `body` is not a tuple.
    package static func members(ofBody body: OpaquePointer,
                                fileDescriptors: UnsafeMutablePointer<GUnixFDList>? = nil) throws -> [BusValue] {
        guard g_variant_is_container(body) != 0, g_variant_get_type_string(body).pointee == CChar(UInt8(ascii: "(")) else {
            throw UnsupportedVariantType(signature: String(cString: g_variant_get_type_string(body)))
        }
        let decoder = VariantDecoder(fileDescriptors: fileDescriptors)
        return try VariantDecoder.eachChild(of: body) { try decoder.read($0, depth: 0) }
    }
}

private struct VariantDecoder {
    let fileDescriptors: UnsafeMutablePointer<GUnixFDList>?

    /// Reads `variant`, found inside `depth` containers.
    func read(_ variant: OpaquePointer, depth: Int) throws -> BusValue {
        let signature = String(cString: g_variant_get_type_string(variant))
        let nesting: Int
        do {
            nesting = try BusValue.nesting(ofType: signature)
        } catch BusValueError.tooDeep {
            throw BusValueError.tooDeep
        } catch {
            throw UnsupportedVariantType(signature: signature)
        }
        guard depth + nesting <= BusValue.maximumDepth else { throw BusValueError.tooDeep }
        switch signature {
        case "s": return .string(Self.text(variant))
        case "o": return .objectPath(Self.text(variant))
        case "g":
            // GVariant lets through signatures D-Bus refuses (`{ss}`, `()`): what is read can be sent.
            let signature = Self.text(variant)
            guard BusValue.isValidSignature(signature) else { throw BusValueError.invalidSignature(signature) }
            return .typeSignature(signature)
        case "b": return .bool(g_variant_get_boolean(variant) != 0)
        case "y": return .byte(g_variant_get_byte(variant))
        case "n": return .int16(g_variant_get_int16(variant))
        case "i": return .int32(g_variant_get_int32(variant))
        case "q": return .uint16(g_variant_get_uint16(variant))
        case "u": return .uint32(g_variant_get_uint32(variant))
        case "x": return .int64(Int64(g_variant_get_int64(variant)))
        case "t": return .uint64(UInt64(g_variant_get_uint64(variant)))
        case "d": return .double(g_variant_get_double(variant))
        case "h": return .fileDescriptor(try resolve(g_variant_get_handle(variant)))
        case "v":
            guard let inner = g_variant_get_variant(variant) else { throw UnsupportedVariantType(signature: signature) }
            defer { g_variant_unref(inner) }
            return .variant(try read(inner, depth: depth + 1))
        case "ay": return .bytes(Self.bytes(variant))
        case "as": return .strings(try Self.eachChild(of: variant, Self.text))
        case "aay": return .byteArrays(try Self.eachChild(of: variant, Self.bytes))
        case "a{sv}": return .dictionary(try record(variant, depth: depth))
        case "aa{sv}": return .dictionaries(try Self.eachChild(of: variant) { try record($0, depth: depth + 1) })
        default:
            let codes = Array(signature.utf8)
            if codes.starts(with: "a{".utf8) {
                // A basic key type, one character, then the value type: `a{oa{sv}}`.
                let keyType = String(decoding: codes[2...2], as: UTF8.self)
                let valueType = String(decoding: codes[3..<(codes.count - 1)], as: UTF8.self)
                return .dict(keyType: keyType, valueType: valueType, try entries(variant, depth: depth))
            }
            if codes.first == UInt8(ascii: "a") {
                let elements = try Self.eachChild(of: variant) { try read($0, depth: depth + 1) }
                return .array(elementType: String(signature.dropFirst()), elements)
            }
            return .tuple(try Self.eachChild(of: variant) { try read($0, depth: depth + 1) })
        }
    }

    /// An `a{sv}` found at `depth`, its values unwrapped.
    private func record(_ variant: OpaquePointer, depth: Int) throws -> [String: BusValue] {
        var record: [String: BusValue] = [:]
        try Self.eachChild(of: variant) { entry in
            guard let key = Self.child(entry, 0), let boxed = Self.child(entry, 1) else { return }
            defer {
                g_variant_unref(key)
                g_variant_unref(boxed)
            }
            guard let member = g_variant_get_variant(boxed) else { return }
            defer { g_variant_unref(member) }
            do {
                record[Self.text(key)] = try read(member, depth: depth + 3)
            } catch is UnsupportedVariantType {
                return
            }
        }
        return record
    }

    /// The entries of any other dictionary found at `depth`.
    private func entries(_ variant: OpaquePointer, depth: Int) throws -> [BusValue: BusValue] {
        var entries: [BusValue: BusValue] = [:]
        try Self.eachChild(of: variant) { entry in
            guard let key = Self.child(entry, 0), let member = Self.child(entry, 1) else { return }
            defer {
                g_variant_unref(key)
                g_variant_unref(member)
            }
            entries[try read(key, depth: depth + 2)] = try read(member, depth: depth + 2)
        }
        return entries
    }

    /// A handle as a descriptor of its own, duplicated from the message's list.
    private func resolve(_ handle: Int32) throws -> BusFileDescriptor {
        guard let fileDescriptors else {
            throw BusValueError.fileDescriptorUnavailable("handle \(handle) came without file descriptors")
        }
        let count = g_unix_fd_list_get_length(fileDescriptors)
        guard handle >= 0, handle < count else {
            throw BusValueError.fileDescriptorUnavailable("handle \(handle) is not among the message's \(count)")
        }
        var error: UnsafeMutablePointer<GError>?
        let descriptor = g_unix_fd_list_get(fileDescriptors, handle, &error)
        guard descriptor >= 0 else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "cannot be duplicated"
            g_clear_error(&error)
            throw BusValueError.fileDescriptorUnavailable(reason)
        }
        return BusFileDescriptor(taking: descriptor)
    }

    private static func text(_ variant: OpaquePointer) -> String {
        String(cString: g_variant_get_string(variant, nil))
    }

    private static func bytes(_ variant: OpaquePointer) -> [UInt8] {
        var count: gsize = 0
        guard let bytes = g_variant_get_fixed_array(variant, &count, 1), count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
    }

    private static func child(_ variant: OpaquePointer, _ index: Int) -> OpaquePointer? {
        guard index < g_variant_n_children(variant) else { return nil }
        return g_variant_get_child_value(variant, gsize(index))
    }

    @discardableResult
    static func eachChild<T>(of variant: OpaquePointer, _ body: (OpaquePointer) throws -> T) throws -> [T] {
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
