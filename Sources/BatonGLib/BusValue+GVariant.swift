import CGLib

/// A `GVariant` made from ``BusValue``s, with the `GUnixFDList` its handles (`h`) index:
/// what a method call or reply sends. Both references are owned and released with it.
package final class EncodedVariant {
    /// The value, a full (not floating) reference: GLib calls that take it add their own.
    package let variant: OpaquePointer
    /// The descriptors of the value's handles, or `nil` when it has none.
    package let fileDescriptors: UnsafeMutablePointer<GUnixFDList>?

    /// Encodes `value`.
    ///
    /// - Parameter allowingFileDescriptors: whether handles may be gathered into a
    ///   descriptor list; without one a ``BusValue/fileDescriptor(_:)`` is refused.
    /// - Throws: ``BusValueError``.
    package convenience init(_ value: BusValue, allowingFileDescriptors: Bool = false) throws {
        var encoder = VariantEncoder(allowsFileDescriptors: allowingFileDescriptors)
        try encoder.check(value, depth: 0)
        self.init(taking: encoder.build(value), encoder.newFileDescriptorsReference())
    }

    /// Encodes the body of a message: a tuple of `arguments`, `()` for none, each counted
    /// from depth 0 as D-Bus does.
    ///
    /// - Throws: ``BusValueError``.
    package convenience init(body arguments: [BusValue], allowingFileDescriptors: Bool) throws {
        var encoder = VariantEncoder(allowsFileDescriptors: allowingFileDescriptors)
        for argument in arguments {
            try encoder.check(argument, depth: 0)
        }
        var members: [OpaquePointer?] = arguments.map { encoder.build($0) }
        self.init(taking: g_variant_new_tuple(&members, gsize(members.count)), encoder.newFileDescriptorsReference())
    }

    /// Takes a floating variant and a reference to a descriptor list.
    private init(taking floating: OpaquePointer, _ fileDescriptors: UnsafeMutablePointer<GUnixFDList>?) {
        variant = g_variant_ref_sink(floating)
        self.fileDescriptors = fileDescriptors
    }

    deinit {
        g_variant_unref(variant)
        if let fileDescriptors { g_object_unref(fileDescriptors) }
    }
}

extension BusValue {
    /// A new `GVariant` holding the value, as a full reference the caller releases with
    /// `g_variant_unref`. File descriptors are refused: they need a message to travel with.
    ///
    /// - Throws: ``BusValueError``.
    package func makeVariant() throws -> OpaquePointer {
        let encoded = try EncodedVariant(self)
        return withExtendedLifetime(encoded) { g_variant_ref(encoded.variant) }
    }
}

/// Encodes in two steps: ``check(_:depth:)`` refuses what D-Bus cannot carry and gathers the
/// file descriptors, then ``build(_:)`` cannot fail, so nothing half-built is left behind.
private struct VariantEncoder {
    let allowsFileDescriptors: Bool
    private var list: GUnixFDListReference?
    private var indices: [ObjectIdentifier: Int32] = [:]

    init(allowsFileDescriptors: Bool) {
        self.allowsFileDescriptors = allowsFileDescriptors
    }

    /// A new reference to the descriptor list, or `nil` when the value has no handles.
    func newFileDescriptorsReference() -> UnsafeMutablePointer<GUnixFDList>? {
        list.map { g_object_ref($0.raw).assumingMemoryBound(to: GUnixFDList.self) }
    }

    /// Checks `value`, found inside `depth` containers.
    mutating func check(_ value: BusValue, depth: Int) throws {
        switch value {
        case .string, .bool, .byte, .int16, .int32, .uint16, .uint32, .int64, .uint64, .double:
            return
        case .objectPath(let path):
            guard BusValue.isValidObjectPath(path) else { throw BusValueError.invalidObjectPath(path) }
        case .typeSignature(let signature):
            guard BusValue.isValidSignature(signature) else { throw BusValueError.invalidSignature(signature) }
        case .fileDescriptor(let descriptor):
            try register(descriptor)
        case .variant(let inner):
            try Self.room(1, at: depth)
            try check(inner, depth: depth + 1)
        case .bytes, .strings:
            try Self.room(1, at: depth)
        case .byteArrays:
            try Self.room(2, at: depth)
        case .dictionary(let record):
            try Self.room(3, at: depth)
            for member in record.values {
                try check(member, depth: depth + 3)
            }
        case .dictionaries(let records):
            try Self.room(4, at: depth)
            for member in records.lazy.flatMap(\.values) {
                try check(member, depth: depth + 4)
            }
        case .array(let elementType, let elements):
            try Self.room(1 + BusValue.nesting(ofType: elementType), at: depth)
            for element in elements {
                try Self.expect(element, elementType)
                try check(element, depth: depth + 1)
            }
        case .dict(let keyType, let valueType, let entries):
            guard BusValue.isBasicType(keyType) else { throw BusValueError.invalidType(keyType) }
            try Self.room(2 + BusValue.nesting(ofType: valueType), at: depth)
            for (key, member) in entries {
                try Self.expect(key, keyType)
                try Self.expect(member, valueType)
                try check(key, depth: depth + 2)
                try check(member, depth: depth + 2)
            }
        case .tuple(let members):
            guard !members.isEmpty else { throw BusValueError.invalidType("()") }
            try Self.room(1, at: depth)
            for member in members {
                try check(member, depth: depth + 1)
            }
        }
    }

    private static func room(_ nesting: Int, at depth: Int) throws {
        guard depth + nesting <= BusValue.maximumDepth else { throw BusValueError.tooDeep }
    }

    private static func expect(_ value: BusValue, _ type: String) throws {
        let found = value.signature
        guard found == type else { throw BusValueError.typeMismatch(expected: type, found: found) }
    }

    private mutating func register(_ descriptor: BusFileDescriptor) throws {
        guard allowsFileDescriptors else {
            throw BusValueError.fileDescriptorUnavailable("file descriptors travel only in method calls and replies")
        }
        let id = ObjectIdentifier(descriptor)
        guard indices[id] == nil else { return }
        let list = self.list ?? GUnixFDListReference()
        self.list = list
        indices[id] = try descriptor.append(to: list.raw)
    }

    /// A new floating `GVariant` for a value ``check(_:depth:)`` accepted.
    func build(_ value: BusValue) -> OpaquePointer {
        switch value {
        case .string(let value): return g_variant_new_string(value)
        case .bool(let value): return g_variant_new_boolean(value ? 1 : 0)
        case .byte(let value): return g_variant_new_byte(value)
        case .int16(let value): return g_variant_new_int16(value)
        case .int32(let value): return g_variant_new_int32(value)
        case .uint16(let value): return g_variant_new_uint16(value)
        case .uint32(let value): return g_variant_new_uint32(value)
        case .int64(let value): return g_variant_new_int64(gint64(value))
        case .uint64(let value): return g_variant_new_uint64(guint64(value))
        case .double(let value): return g_variant_new_double(value)
        case .objectPath(let path): return g_variant_new_object_path(path)
        case .typeSignature(let signature): return g_variant_new_signature(signature)
        case .fileDescriptor(let descriptor):
            // Every descriptor was registered by check(_:depth:), which refuses the value otherwise.
            return g_variant_new_handle(indices[ObjectIdentifier(descriptor)] ?? -1)
        case .variant(let inner):
            return g_variant_new_variant(build(inner))
        case .bytes(let value):
            return Self.byteArray(value)
        case .strings(let value):
            return Self.array(of: "s", value.map { g_variant_new_string($0) })
        case .byteArrays(let value):
            return Self.array(of: "ay", value.map(Self.byteArray))
        case .dictionary(let record):
            return recordVariant(record)
        case .dictionaries(let records):
            return Self.array(of: "a{sv}", records.map(recordVariant))
        case .array(let elementType, let elements):
            return Self.array(of: elementType, elements.map(build))
        case .dict(let keyType, let valueType, let entries):
            let sorted = entries.sorted { BusValue.keyPrecedes($0.key, $1.key) }
            return Self.array(of: "{" + keyType + valueType + "}", sorted.map { key, member in
                g_variant_new_dict_entry(build(key), build(member))
            })
        case .tuple(let members):
            var children: [OpaquePointer?] = members.map(build)
            return g_variant_new_tuple(&children, gsize(children.count))
        }
    }

    private func recordVariant(_ record: [String: BusValue]) -> OpaquePointer {
        let entries = record.sorted { $0.key < $1.key }.map { key, member in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(build(member)))
        }
        return Self.array(of: "{sv}", entries)
    }

    private static func byteArray(_ bytes: [UInt8]) -> OpaquePointer {
        bytes.withUnsafeBufferPointer {
            g_variant_new_fixed_array(baton_variant_type_byte(), $0.baseAddress, gsize($0.count), 1)
        }
    }

    private static func array(of elementType: String, _ children: [OpaquePointer?]) -> OpaquePointer {
        var children = children
        return elementType.withCString { type in
            g_variant_new_array(baton_variant_type(type), &children, gsize(children.count))
        }
    }
}

/// One reference to a `GUnixFDList`, released with the last copy of the encoder.
private final class GUnixFDListReference {
    let raw: UnsafeMutablePointer<GUnixFDList>

    init() {
        raw = g_unix_fd_list_new()
    }

    deinit {
        g_object_unref(raw)
    }
}

extension BusValue {
    /// The order dictionary keys are sent in: text by text, numbers by value. Keys of one
    /// dictionary share a type, so only like compares with like.
    static func keyPrecedes(_ lhs: BusValue, _ rhs: BusValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): return !left && right
        case (.uint64(let left), .uint64(let right)): return left < right
        case (.double(let left), .double(let right)): return left < right
        case (.fileDescriptor(let left), .fileDescriptor(let right)):
            return (left.descriptor ?? -1) < (right.descriptor ?? -1)
        default:
            if let left = lhs.string, let right = rhs.string { return left < right }
            if let left = lhs.integer, let right = rhs.integer { return left < right }
            return false
        }
    }
}
