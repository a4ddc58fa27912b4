import Foundation
import ServiceFixtures
import XCTest

/// GSConnect and Valent, which Debian 12 does not package, through a stand-in that exports
/// their D-Bus interfaces as their sources publish them (`BatonTestApp phone-service`): batond
/// lists their paired phones (not desktops, not unpaired phones) and sends a web page with
/// their share action (`shareUri`, `share.uri`) on the phone's object.
final class PhoneServiceTests: ServiceTestCase {
    private func check(_ flavor: String, service: String, action: String) throws {
        let log = session.root.appendingPathComponent("\(flavor).jsonl")
        let standIn = try session.start(ServiceSession.product("BatonTestApp"), ["phone-service", "--flavor", flavor, "--log", log.path],
                                        name: flavor)
        XCTAssertTrue(waitUntil { standIn.log.contains("phone service ready") }, standIn.log)
        var phones: [[String: Any]] = []
        XCTAssertTrue(waitUntil {
            phones = (try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []).filter { $0["via"] as? String == service }
            return !phones.isEmpty
        }, "batond never listed \(service)'s phone")
        XCTAssertEqual(phones.map { $0["name"] as? String }, ["Pixel"], "only the paired phone: \(phones)")
        XCTAssertEqual(phones.first?["id"] as? String, "\(flavor):pixel-id")
        XCTAssertEqual(phones.first?["kind"] as? String, "phone")
        XCTAssertEqual(phones.first?["connected"] as? Bool, true)

        let file = try activityFile(["type": "org.example.unclaimed", "title": "Read", "webpageURL": "https://example.org/read/1"])
        let id = try session.baton(["offer", "--file", file]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let sent = try session.baton(["send", id, "Pixel"])
        XCTAssertEqual(sent.status, 0, sent.errorOutput)
        let calls = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        XCTAssertEqual(calls, [["action": action, "device": "\(calls.first?["device"] ?? "")", "parameter": "https://example.org/read/1"]])
        XCTAssertTrue(calls.first?["device"]?.hasSuffix("/Device/pixel") ?? false, "\(calls)")
        standIn.stop()
        XCTAssertTrue(waitUntil { (try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []).allSatisfy { $0["via"] == nil } },
                      "the phones go with the service")
    }

    func testGSConnectsPhonesAreListedAndSentPages() throws {
        try check("gsconnect", service: "GSConnect", action: "shareUri")
    }

    func testValentsPhonesAreListedAndSentPages() throws {
        try check("valent", service: "Valent", action: "share.uri")
    }
}
