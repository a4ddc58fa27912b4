import Foundation

/// Reads the binary format's primitives from untrusted bytes: every read is bounds-checked
/// and every failure is a ``UserActivityError/malformedPayload(_:)``.
struct BinaryReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// How many bytes there are in all, read or not.
    var size: Int { bytes.count }
    var isAtEnd: Bool { offset == bytes.count }
    private var remaining: Int { bytes.count - offset }

    private static func malformed(_ reason: String) -> UserActivityError {
        .malformedPayload(reason)
    }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw Self.malformed("truncated") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func raw(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw Self.malformed("truncated") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64, shift != 63 || next & 0x7E == 0 else {
                throw Self.malformed("varint overflows 64 bits")
            }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A count or length: never more than the bytes left, since each item takes at least one.
    mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(remaining) else { throw Self.malformed("count larger than the data") }
        return Int(value)
    }

    mutating func double() throws -> Double {
        var bits: UInt64 = 0
        for byte in try raw(8) { bits = bits << 8 | UInt64(byte) }
        return Double(bitPattern: bits)
    }

    mutating func string(maximumLength: Int = .max) throws -> String {
        let length = try count()
        guard length <= maximumLength else {
            throw Self.malformed("text of \(length) bytes is over the limit of \(maximumLength)")
        }
        guard let text = String(validating: try raw(length), as: UTF8.self) else {
            throw Self.malformed("invalid UTF-8")
        }
        return text
    }

    mutating func value(depth: Int) throws -> UserInfoValue {
        guard depth < UserActivityPayload.maximumNesting else {
            throw Self.malformed("nesting deeper than \(UserActivityPayload.maximumNesting)")
        }
        let tagByte = try byte()
        guard let tag = ValueTag(rawValue: tagByte) else {
            throw Self.malformed("unknown value tag \(tagByte)")
        }
        switch tag {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .int:
            let zigzag = try varint()
            return .int(Int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
        case .double: return .double(try double())
        case .string: return .string(try string())
        case .data: return .data(Data(try raw(try count())))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try double()))
        case .url:
            guard let url = URL(string: try string()) else { throw Self.malformed("invalid URL") }
            return .url(url)
        case .uuid:
            let raw = try raw(16)
            let uuid = UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                                   raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
            return .uuid(uuid)
        case .array:
            let count = try count()
            var elements: [UserInfoValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try value(depth: depth + 1)) }
            return .array(elements)
        case .dictionary:
            return .dictionary(try dictionaryBody(depth: depth + 1))
        }
    }

    mutating func dictionaryBody(depth: Int) throws -> [String: UserInfoValue] {
        let count = try count()
        var entries: [String: UserInfoValue] = [:]
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let key = try string()
            guard entries.updateValue(try value(depth: depth), forKey: key) == nil else {
                throw Self.malformed("duplicate key \"\(key)\"")
            }
        }
        return entries
    }
}
