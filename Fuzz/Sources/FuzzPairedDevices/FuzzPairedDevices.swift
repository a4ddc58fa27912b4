import BatonPeer
import Foundation
import FuzzSupport

// Covers batond's `paired-devices.json`: `PairedDevices(directory:)` reading the file through
// `PrivateFiles.read` and decoding it (JSONDecoder, ISO 8601 dates, base64 certificates).
// `batond` is an executable target, so PairedDevices.swift and ConfigError.swift are
// compiled into this harness through symbolic links. A bad file must be a `ConfigError`;
// a good list, saved again as batond saves it, must read back the same.

@main
enum PairedDevicesHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        MainActor.assumeIsolated { readList(bytes) }
    }
}

@MainActor
private func readList(_ bytes: [UInt8]) {
    _ = Fuzz.scratchFile(PairedDevices.fileName, holding: bytes)
    guard let list = Fuzz.refused(as: ConfigError.self, "reading", { try PairedDevices(directory: Fuzz.scratch) }),
          let first = list.devices.values.min(by: { $0.id < $1.id }) else { return }
    Fuzz.orFail("a list batond read cannot be saved and read again") {
        // A save keeps whole seconds (ISO 8601 without a fraction), which the reader accepts
        // with one: the first save may round `pairedAt`, the second must change nothing.
        try list.pin(first)
        let saved = try PairedDevices(directory: Fuzz.scratch)
        check(saved, against: list, secondsApart: 1)
        if let again = saved.devices[first.id] { try saved.pin(again) }
        check(try PairedDevices(directory: Fuzz.scratch), against: saved, secondsApart: 0)
    }
}

/// `list` read back holds the devices of `original`, `pairedAt` within `secondsApart`.
@MainActor
private func check(_ list: PairedDevices, against original: PairedDevices, secondsApart: Double) {
    Fuzz.require(list.devices.count == original.devices.count, "a saved list reads back with another count")
    for (id, device) in original.devices {
        guard let other = list.devices[id] else { Fuzz.fail("device \(id) is gone after a save") }
        let apart = abs(other.pairedAt.timeIntervalSince(device.pairedAt))
        Fuzz.require(other.id == device.id && other.name == device.name && other.certificate == device.certificate
                     && other.address == device.address && (secondsApart > 0 ? apart < secondsApart : apart == 0),
                     "device \(id) changed through a save")
    }
}

extension PairedDevicesHarness {
    /// Lists as batond writes them (pretty-printed, sorted keys), and a few broken ones.
    static func seeds() -> [String: [UInt8]] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let certificate = Data((0..<48).map { UInt8($0 * 5 & 0xFF) })
        let lists: [String: [PairedDevice]] = [
            "one-device.json": [PairedDevice(id: "0123456789abcdef0123456789abcdef", name: "laptop",
                                             certificate: certificate, address: "192.168.1.20:48100",
                                             pairedAt: Date(timeIntervalSince1970: 1_750_000_000))],
            "two-devices.json": [
                PairedDevice(id: "0123456789abcdef0123456789abcdef", name: "laptop", certificate: certificate,
                             address: "[fe80::1]:48100", pairedAt: Date(timeIntervalSince1970: 1_750_000_000)),
                PairedDevice(id: "fedcba9876543210fedcba9876543210", name: "desk “main”", certificate: Data(),
                             address: nil, pairedAt: Date(timeIntervalSince1970: 0)),
            ],
            "empty-list.json": [],
        ]
        var seeds = lists.compactMapValues { try? Array(encoder.encode($0)) }
        seeds["not-a-list.json"] = Array(#"{"id": "0123"}"#.utf8)
        seeds["bad-date.json"] = Array(#"[{"id":"a","name":"b","certificate":"AAEC","pairedAt":"yesterday"}]"#.utf8)
        seeds["bad-base64.json"] = Array(#"[{"id":"a","name":"b","certificate":"%%%","pairedAt":"2025-01-01T00:00:00Z"}]"#.utf8)
        return seeds
    }
}
