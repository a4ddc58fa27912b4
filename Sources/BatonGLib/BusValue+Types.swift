import CGLib

extension BusValue {
    /// Whether `path` is a D-Bus object path (`/`, `/org/baton/Daemon`), as
    /// ``objectPath(_:)`` needs.
    public static func isValidObjectPath(_ path: String) -> Bool {
        !path.utf8.contains(0) && g_variant_is_object_path(path) != 0
    }

    /// Whether `signature` is a D-Bus type signature, as ``typeSignature(_:)`` needs: zero
    /// or more complete types, at most 255 bytes, with dictionary entries only in arrays and
    /// no empty structs (GLib's own check lets those two through).
    public static func isValidSignature(_ signature: String) -> Bool {
        let codes = Array(signature.utf8)
        guard codes.count <= 255, !codes.contains(0), g_variant_is_signature(signature) != 0 else { return false }
        var index = 0
        while index < codes.count {
            guard (try? scanType(codes, &index, level: 0, signature)) != nil else { return false }
        }
        return true
    }

    /// Whether `type` is one of the basic types, which may key a dictionary.
    static func isBasicType(_ type: String) -> Bool {
        type.utf8.count == 1 && type.utf8.first.map(isBasicTypeCode) == true
    }

    /// How deeply `type`, one complete D-Bus type, nests containers: `s` 0, `as` 1, `v` 1
    /// (its content has a type of its own), `a{sv}` 3.
    ///
    /// - Throws: ``BusValueError/invalidType(_:)`` for anything else, GVariant's maybe types
    ///   and empty structs included; ``BusValueError/tooDeep`` past ``maximumDepth``.
    static func nesting(ofType type: String) throws -> Int {
        let codes = Array(type.utf8)
        var index = 0
        let nesting = try scanType(codes, &index, level: 0, type)
        guard index == codes.count else { throw BusValueError.invalidType(type) }
        return nesting
    }

    private static func scanType(_ codes: [UInt8], _ index: inout Int, level: Int, _ type: String) throws -> Int {
        guard level <= maximumDepth else { throw BusValueError.tooDeep }
        guard index < codes.count else { throw BusValueError.invalidType(type) }
        let code = codes[index]
        index += 1
        if isBasicTypeCode(code) { return 0 }
        switch code {
        case UInt8(ascii: "v"):
            return 1
        case UInt8(ascii: "a"):
            guard index < codes.count, codes[index] == UInt8(ascii: "{") else {
                return 1 + (try scanType(codes, &index, level: level + 1, type))
            }
            index += 1
            guard index < codes.count, isBasicTypeCode(codes[index]) else { throw BusValueError.invalidType(type) }
            index += 1
            let valueNesting = try scanType(codes, &index, level: level + 2, type)
            guard index < codes.count, codes[index] == UInt8(ascii: "}") else { throw BusValueError.invalidType(type) }
            index += 1
            return 2 + valueNesting
        case UInt8(ascii: "("):
            var deepest = 0
            var members = 0
            while index < codes.count, codes[index] != UInt8(ascii: ")") {
                deepest = max(deepest, try scanType(codes, &index, level: level + 1, type))
                members += 1
            }
            guard index < codes.count, members > 0 else { throw BusValueError.invalidType(type) }
            index += 1
            return 1 + deepest
        default:
            throw BusValueError.invalidType(type)
        }
    }

    private static func isBasicTypeCode(_ code: UInt8) -> Bool {
        "ybnqiuxtdhsog".utf8.contains(code)
    }
}
