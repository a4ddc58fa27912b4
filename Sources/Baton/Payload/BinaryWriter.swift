import Foundation

/// Value tags of the binary format.
enum ValueTag: UInt8 {
    case null = 0, falseValue, trueValue, int, double, string, data, date, url, uuid, array, dictionary
}

/// Appends the binary format's primitives to a byte array.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func raw<Bytes: Sequence>(_ value: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: value)
    }

    mutating func varint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    mutating func double(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    mutating func value(_ value: UserInfoValue) {
        switch value {
        case .null:
            byte(ValueTag.null.rawValue)
        case .bool(let flag):
            byte(flag ? ValueTag.trueValue.rawValue : ValueTag.falseValue.rawValue)
        case .int(let number):
            byte(ValueTag.int.rawValue)
            varint(UInt64(bitPattern: Int64((number << 1) ^ (number >> (Int.bitWidth - 1)))))
        case .double(let number):
            byte(ValueTag.double.rawValue)
            double(number)
        case .string(let text):
            byte(ValueTag.string.rawValue)
            string(text)
        case .data(let data):
            byte(ValueTag.data.rawValue)
            varint(UInt64(data.count))
            raw(data)
        case .date(let date):
            byte(ValueTag.date.rawValue)
            double(date.timeIntervalSinceReferenceDate)
        case .url(let url):
            byte(ValueTag.url.rawValue)
            string(url.absoluteString)
        case .uuid(let uuid):
            byte(ValueTag.uuid.rawValue)
            withUnsafeBytes(of: uuid.uuid) { raw($0) }
        case .array(let elements):
            byte(ValueTag.array.rawValue)
            varint(UInt64(elements.count))
            for element in elements { self.value(element) }
        case .dictionary(let entries):
            byte(ValueTag.dictionary.rawValue)
            dictionaryBody(entries)
        }
    }

    /// A dictionary's count and entries, keys in sorted order so equal dictionaries encode
    /// to equal bytes.
    mutating func dictionaryBody(_ entries: [String: UserInfoValue]) {
        varint(UInt64(entries.count))
        for key in entries.keys.sorted() {
            string(key)
            if let entry = entries[key] { value(entry) }
        }
    }
}
