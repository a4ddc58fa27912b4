import Foundation
import ServiceFixtures
import XCTest

/// `baton inspect` of an activity whose userInfo holds what the binary format carries but
/// JSON cannot (a number or date that is not finite): one `baton:` message that names the
/// value's place, in text and in JSON.
final class InspectMessageTests: ServiceTestCase {
    /// The binary format's pieces (see `UserActivityPayload+Binary.swift`), to write by hand
    /// the payloads Baton's own encoder would never make for a JSON file.
    private func varint(_ value: Int) -> [UInt8] {
        var remaining = UInt64(value)
        var bytes: [UInt8] = []
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        return bytes + [UInt8(remaining)]
    }

    private func string(_ text: String) -> [UInt8] { varint(text.utf8.count) + Array(text.utf8) }

    private func double(_ value: Double) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value.bitPattern >> UInt64($0 * 8)) }
    }

    /// An eligible activity of type `org.example.odd` whose userInfo body is `info`.
    private func payload(info: [UInt8]) -> [UInt8] {
        Array("BATN".utf8) + [1, 1] + string("org.example.odd") + varint(0) + varint(info.count) + info
    }

    /// Offers `bytes` as another device's activity would be (`AddOffer`); its id.
    private func offer(_ bytes: [UInt8]) throws -> String {
        let argument = "[" + bytes.map { String(format: "byte 0x%02x", $0) }.joined(separator: ", ") + "]"
        let result = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"),
                                     ["call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
                                      "--method", "org.baton.Daemon1.AddOffer", argument, "{}"])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let id = result.output.split(separator: "'").dropFirst().first.map(String.init)
        return try XCTUnwrap(id, "no offer id in \(result.output)")
    }

    private func occurrences(of part: String, in text: String) -> Int {
        text.components(separatedBy: part).count - 1
    }

    func testInspectNamesTheValueJSONCannotHoldOnce() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"), "gdbus is missing")
        // {"draft": {"to": ["a", "b", inf], "subject": "Lunch"}}
        let to = [10] + varint(3) + [5] + string("a") + [5] + string("b") + [4] + double(.infinity)
        let draft = [11] + varint(2) + string("subject") + [5] + string("Lunch") + string("to") + to
        // {"sent": date(nan)}
        let sent = [7] + double(.nan)
        let cases: [(info: [UInt8], place: String, what: String)] = [
            (varint(1) + string("draft") + draft, #"userInfo["draft"]["to"][2]"#, "the number inf is not finite"),
            (varint(1) + string("sent") + sent, #"userInfo["sent"]"#, "the date nan is not a finite time"),
        ]
        for (info, place, what) in cases {
            let id = try offer(payload(info: info))
            for arguments in [["inspect", id], ["inspect", id, "--json"]] {
                let result = try session.baton(arguments)
                let message = result.errorOutput
                XCTAssertEqual(result.status, 1, "\(arguments): \(message)")
                XCTAssertTrue(message.hasPrefix("baton: "), "one message in baton's words: \(message)")
                XCTAssertEqual(message.split(separator: "\n").count, 1, "one line: \(message)")
                XCTAssertTrue(message.contains("\(place): \(what)"), "names the place and the value: \(message)")
                XCTAssertEqual(occurrences(of: place, in: message), 1, "said once: \(message)")
                XCTAssertFalse(message.contains("EncodingError"), "not the encoder's own words: \(message)")
                XCTAssertTrue(result.output.isEmpty, "nothing half-printed: \(result.output)")
            }
        }
        try assertServiceAlive()
    }
}
