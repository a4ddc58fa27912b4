import Baton
import BatonBus
import BatonGLib
import CGLib
import Foundation
import FuzzSupport

// Covers the D-Bus side: the GVariant → `BusValue` conversion (`BusValue(variant:)`,
// `BusValue.members(ofBody:)`), the network record reader `BusValue.deserialize(record:)`,
// and the record decoders `ActivitySummary(record:)` and `UserActivityError(record:)`.
// Bytes become a GVariant of a fixed type (the Baton interfaces' argument and record
// types) or of a type the input names, through `g_variant_new_from_bytes`, normalised as
// GDBus's values are. Errors must be the documented ones; whatever converts must convert
// back to the same serialization; records must survive their own `record`.
//
// Input: one byte choosing the type (the last choice reads a type string from the input,
// up to a NUL), then the serialized data.

/// Types Baton's D-Bus interfaces and peer records carry, and a few general ones.
let fixedTypes = [
    "a{sv}", "aa{sv}", "v", "(sa{sv})", "(aya{sv})", "(ssas)", "(say)", "(ss)", "ay", "as", "aay",
    "a{ss}", "a{oa{sa{sv}}}", "(bsav)", "(yntqxdhog)", "av", "a(sv)",
]

@main
enum BusRecordHarness: FuzzHarness {
    static func test(_ input: [UInt8]) {
        guard let choice = input.first else { return }
        var rest = input.dropFirst()
        let typeCodes: [UInt8]
        if Int(choice) % (fixedTypes.count + 1) < fixedTypes.count {
            typeCodes = Array(fixedTypes[Int(choice) % (fixedTypes.count + 1)].utf8)
        } else {
            guard let end = rest.firstIndex(of: 0) else { return }
            typeCodes = Array(rest[..<end])
            rest = rest[(end + 1)...]
        }
        let type = (typeCodes + [0]).map { CChar(bitPattern: $0) }
        let isRecord = typeCodes == Array("a{sv}".utf8)
        if isRecord { readRecordBytes(Array(rest)) }
        guard type.withUnsafeBufferPointer({ g_variant_type_string_is_valid($0.baseAddress) != 0
                                             && g_variant_type_is_definite(baton_variant_type($0.baseAddress)) != 0 })
        else { return }

        let bytes = Array(rest).withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let made = type.withUnsafeBufferPointer({ g_variant_new_from_bytes(baton_variant_type($0.baseAddress), bytes, 0) }),
              let variant = g_variant_ref_sink(made) else { return }
        defer { g_variant_unref(variant) }
        if g_variant_is_normal_form(variant) != 0 {
            convert(variant)
        } else if typeCodes.count <= BusValue.maximumDepth, let normal = g_variant_get_normal_form(variant) {
            // GLib 2.74's g_variant_get_normal_form aborts on a type nested 128 deep, which
            // g_variant_type_string_is_valid accepts; Baton never normalises (it refuses what is
            // not in normal form), and BusValue refuses such depths before reading any member.
            defer { g_variant_unref(normal) }
            convert(normal)
        }
    }
}

/// Converts a GVariant in normal form, and the value back.
private func convert(_ variant: OpaquePointer) {
    guard let value = Fuzz.refused(as: UnsupportedVariantType.self, or: BusValueError.self, "converting", {
        try BusValue(variant: variant)
    }) else { return }
    if g_variant_get_type_string(variant).pointee == CChar(UInt8(ascii: "(")) {
        let members = Fuzz.orFail("a body that converts as a tuple has no members") { try BusValue.members(ofBody: variant) }
        Fuzz.require(members == value.tuple ?? [] || value.containsNaN, "a body's members are not its tuple's")
    }
    let serialized = serialization(of: value)
    Fuzz.orFail("\(value) does not convert back") {
        let variant = try value.makeVariant()
        defer { g_variant_unref(variant) }
        let back = try BusValue(variant: variant)
        Fuzz.require(serialization(of: back) == serialized, "\(value) changed through a GVariant")
    }
    if case .dictionary(let record) = value { checkRecord(record) }
    if case .dictionaries(let records) = value { records.forEach(checkRecord) }
}

/// What `deserialize(record:)` makes of the raw bytes of a network frame's body.
private func readRecordBytes(_ bytes: [UInt8]) {
    if let record = Fuzz.refused(as: MalformedRecord.self, "reading a record", { try BusValue.deserialize(record: bytes) }) {
        checkRecord(record)
    }
}

/// The record decoders: each error is theirs, and what they read survives its own record.
private func checkRecord(_ record: [String: BusValue]) {
    if let summary = Fuzz.refused(as: ServiceError.self, "a summary", { try ActivitySummary(record: record) }) {
        let again = Fuzz.orFail("\(summary) does not read back from its own record") {
            try ActivitySummary(record: summary.record)
        }
        var withoutDates = (summary, again)
        withoutDates.0.expirationDate = nil
        withoutDates.1.expirationDate = nil
        Fuzz.require(withoutDates.0 == withoutDates.1 && closeDates(summary.expirationDate, again.expirationDate),
                     "\(summary) changed through its record")
    }
    let error = UserActivityError(record: record)
    Fuzz.require(UserActivityError(record: error.record) == error, "\(error) changed through its record")
    let bytes = BusValue.serialize(record: record)
    let read = Fuzz.orFail("a serialized record does not read back") { try BusValue.deserialize(record: bytes) }
    Fuzz.require(BusValue.serialize(record: read) == bytes, "a record changed through its serialization")
}

/// Dates sent as seconds since 1970 may move by a rounding step.
private func closeDates(_ one: Date?, _ other: Date?) -> Bool {
    guard let one, let other else { return one == nil && other == nil }
    let seconds = one.timeIntervalSince1970
    return abs(seconds - other.timeIntervalSince1970) <= max(1e-6, abs(seconds) * 1e-12)
}

/// The type and serialized bytes of `value`, which compare where `BusValue`'s `==` cannot
/// (NaN); `nil` if it cannot be made.
private func serialization(of value: BusValue) -> [UInt8]? {
    guard let variant = try? value.makeVariant() else { return nil }
    defer { g_variant_unref(variant) }
    let type = Array(String(cString: g_variant_get_type_string(variant)).utf8)
    let size = Int(g_variant_get_size(variant))
    guard size > 0, let data = g_variant_get_data(variant) else { return type }
    return type + [0] + Array(UnsafeRawBufferPointer(start: data, count: size))
}

extension BusValue {
    /// Whether a double NaN is in the value, where `==` says it differs from itself.
    var containsNaN: Bool {
        switch self {
        case .double(let number): return number.isNaN
        case .variant(let inner): return inner.containsNaN
        case .tuple(let members), .array(_, let members): return members.contains(where: \.containsNaN)
        case .dictionary(let record): return record.values.contains(where: \.containsNaN)
        case .dictionaries(let records): return records.contains { $0.values.contains(where: \.containsNaN) }
        case .dict(_, _, let entries): return entries.contains { $0.key.containsNaN || $0.value.containsNaN }
        default: return false
        }
    }
}

extension BusRecordHarness {
    /// Values as batond, apps and peers send them, each behind the byte that picks its type.
    static func seeds() -> [String: [UInt8]] {
        let summary = ActivitySummary(activityType: "org.example.mail.compose", title: "Draft: Lunch",
                                      webpageURL: URL(string: "https://mail.example.org/drafts/1"),
                                      expirationDate: Date(timeIntervalSince1970: 2_000_000_000))
        let payload = Array("BATN".utf8) + [1, 1, 1, 0x61, 0, 1, 0]
        // A webpage URL as long as a field may be: one changed character from one that `URL`
        // percent-encodes past the limit.
        let longest = ActivitySummary(activityType: "org.example.browse", webpageURL: URL(
            string: "https://example.org/" + String(repeating: "a", count: UserActivityPayload.maximumFieldLength - 20)))
        let values: [String: BusValue] = [
            "summary": .dictionary(summary.record),
            "longest-url": .dictionary(longest.record),
            "error-too-large": .dictionary(UserActivityError.userInfoTooLarge(size: 70_000, limit: 65_536).record),
            "error-cancelled": .dictionary(UserActivityError.cancelled.record),
            "activities": .dictionaries([summary.record.merging(["id": .string("abc123"), "app-id": .string("org.example.Mail")]) { $1 },
                                         ActivitySummary(activityType: "org.example.note", isEligibleForHandoff: false).record]),
            "publish-current": .tuple([.string("6F9619FF"), .dictionary(summary.record)]),
            "continue-payload": .tuple([.bytes(payload), .dictionary(["team-id": .string("org.example")])]),
            "register": .tuple([.string("org.example.Mail"), .string("org.example"),
                                .strings(["org.example.mail.compose", "org.example.mail.read"])]),
            "complete-continuation": .tuple([.string("token-1"), .bytes(payload)]),
            "txt-records": .byteArrays([Array("id=0123".utf8), Array("v=1".utf8)]),
            "object-manager": .dict(keyType: "o", valueType: "a{sa{sv}}", [
                .objectPath("/org/baton/Daemon"): .dict(keyType: "s", valueType: "a{sv}", [
                    .string("org.baton.Daemon1"): .dictionary(["Version": .uint32(1)]),
                ]),
            ]),
            "basics": .tuple([.byte(7), .int16(-2), .int32(-3), .uint16(4), .uint64(5), .int64(-6), .double(0.5),
                              .variant(.objectPath("/a")), .typeSignature("a{sv}")]),
        ]
        var seeds: [String: [UInt8]] = [:]
        for (name, value) in values {
            guard let variant = try? value.makeVariant() else { continue }
            defer { g_variant_unref(variant) }
            let type = String(cString: g_variant_get_type_string(variant))
            let size = Int(g_variant_get_size(variant))
            let body = size > 0 ? g_variant_get_data(variant).map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? [] : []
            if let index = fixedTypes.firstIndex(of: type) {
                seeds[name] = [UInt8(index)] + body
            } else {
                seeds[name] = [UInt8(fixedTypes.count)] + Array(type.utf8) + [0] + body
            }
        }
        seeds["maybe-type"] = [UInt8(fixedTypes.count)] + Array("ms".utf8) + [0] + Array("x\0\0".utf8)
        seeds["not-normal"] = [0, 1, 0, 0, 0, 0, 0, 0, 0]
        return seeds
    }
}
