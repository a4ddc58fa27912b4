import Baton
import BatonBus

/// The TXT record of a `_baton._tcp` service: what this device announces over DNS-SD, and what
/// is read from another device's record, which is outside input.
///
/// A record holds `id=<device id>`, `v=<protocol version>` and `n=<name>`: the name the device
/// gives itself, cut to ``maximumNameBytes``. The name is a claim, as a hello's is: anyone on
/// the network can announce any name. An older batond announces no `n=`.
///
/// Reading follows RFC 6763 §6: keys are compared without case, the first entry of a key counts
/// and later ones are ignored, an entry without `=` is a key without a value. Only the first
/// ``maximumEntries`` entries are read; an id or version that is not UTF-8 is left out; a name
/// that is not UTF-8 is read as an empty name (the device is listed by its short id), and a
/// name is cleaned (``DeviceNameSkeleton/cleaned(_:)``) and cut to ``maximumNameBytes``.
struct DiscoveryRecord: Equatable, Sendable {
    /// The device id it announces, if any.
    let deviceID: String?
    /// The peer protocol version it announces, if any.
    let version: String?
    /// The name it gives itself, cleaned; empty when its `n=` holds nothing usable, `nil` when
    /// it has no `n=` (an older batond).
    let name: String?

    /// The most bytes of a name announced or read: a TXT entry holds 255 bytes at most, and
    /// DNS-SD asks to keep the whole record short (RFC 6763 §6.2).
    static let maximumNameBytes = 100
    /// The most entries read from one record.
    static let maximumEntries = 16

    init(deviceID: String?, version: String?, name: String?) {
        self.deviceID = deviceID
        self.version = version
        self.name = name
    }

    /// Reads the TXT entries avahi-daemon resolved (`aay`).
    init(entries: [[UInt8]]) {
        var values: [String: [UInt8]] = [:]
        for entry in entries.prefix(Self.maximumEntries) {
            let equals = entry.firstIndex(of: UInt8(ascii: "=")) ?? entry.endIndex
            guard equals > entry.startIndex, let key = String(validating: entry[..<equals], as: UTF8.self)?.lowercased(),
                  values[key] == nil else { continue }
            values[key] = equals < entry.endIndex ? Array(entry[(equals + 1)...]) : []
        }
        deviceID = values["id"].flatMap { String(validating: $0, as: UTF8.self) }
        version = values["v"].flatMap { String(validating: $0, as: UTF8.self) }
        name = values["n"].map { bytes in
            String(validating: bytes, as: UTF8.self).map(Self.cleanedName) ?? ""
        }
    }

    /// The TXT entries that announce this record: `id=`, `v=` and, when there is a name, `n=`.
    var entries: [[UInt8]] {
        var entries = [deviceID.map { "id=\($0)" }, version.map { "v=\($0)" }].compactMap { $0 }
        if let name {
            let cleaned = Self.cleanedName(name)
            if !cleaned.isEmpty { entries.append("n=\(cleaned)") }
        }
        return entries.map { Array($0.utf8) }
    }

    /// `name` without unsafe or invisible characters, cut between characters to
    /// ``maximumNameBytes``.
    static func cleanedName(_ name: String) -> String {
        DeviceNameSkeleton.cleaned(ActivityLimits.prefix(of: DeviceNameSkeleton.cleaned(name), bytes: maximumNameBytes))
    }
}
