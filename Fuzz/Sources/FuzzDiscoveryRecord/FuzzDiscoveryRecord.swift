import BatonBus
import FuzzSupport

// Covers what batond reads from another device's DNS-SD TXT record (`DiscoveryRecord`), as it
// travels over mDNS: a run of entries, each one length byte and that many bytes. `batond` is an
// executable target, so DiscoveryRecord.swift is compiled into this harness through a symbolic
// link. Reading never fails; a name read must be cleaned, within the limit, and read back the
// same once announced.

@main
enum DiscoveryRecordHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        let record = DiscoveryRecord(entries: entries(of: bytes))
        if let name = record.name {
            Fuzz.require(name.utf8.count <= DiscoveryRecord.maximumNameBytes, "a name over the limit")
            Fuzz.require(!UnsafeCharacters.occur(in: name), "a name with unsafe characters")
            Fuzz.require(name == DeviceNameSkeleton.cleaned(name), "a name that is not cleaned")
        }
        let announced = DiscoveryRecord(entries: record.entries)
        Fuzz.require(announced.deviceID == record.deviceID && announced.version == record.version,
                     "the id or version reads back otherwise once announced")
        Fuzz.require(announced.name == (record.name?.isEmpty == true ? nil : record.name),
                     "the name reads back otherwise once announced")
    }

    /// The entries of a TXT record's wire form; a last entry cut short is taken as it is.
    static func entries(of bytes: [UInt8]) -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let length = Int(bytes[index])
            let start = index + 1
            let end = min(start + length, bytes.endIndex)
            entries.append(Array(bytes[start..<end]))
            index = end
        }
        return entries
    }

    /// A TXT record's wire form of `entries`.
    static func wire(_ entries: [String]) -> [UInt8] {
        entries.flatMap { entry in [UInt8(min(entry.utf8.count, 255))] + Array(entry.utf8.prefix(255)) }
    }
}

extension DiscoveryRecordHarness {
    /// Records as batond announces them, an older batond's, and broken ones.
    static func seeds() -> [String: [UInt8]] {
        let id = "0123456789abcdef0123456789abcdef"
        return [
            "announced": DiscoveryRecord(deviceID: id, version: "1", name: "Ada’s Laptop").entries
                .flatMap { [UInt8($0.count)] + $0 },
            "older": wire(["id=\(id)", "v=1"]),
            "repeated-keys": wire(["ID=\(id)", "n=First", "N=Second", "id=other"]),
            "unsafe-name": wire(["id=\(id)", "v=1", "n=Evil\u{202E}\u{0007}\nname\u{200B} "]),
            "long-name": wire(["id=\(id)", "n=" + String(repeating: "é", count: 126)]),
            "bad-utf8": [5] + Array("n=".utf8) + [0xff, 0xc3, 0x28] + [4] + Array("flag".utf8),
        ]
    }
}
