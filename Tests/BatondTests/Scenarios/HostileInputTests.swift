import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// Input an attacker chose: text with terminal controls and bidirectional overrides, huge
/// ids, files that are not activity files, broken config files. Each gets a clear, short
/// error or is shown harmlessly, and changes nothing.
final class HostileInputTests: ServiceTestCase {
    /// The characters no output of baton may carry raw (the pretty-printing line breaks aside).
    private func rawUnsafe(_ text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            scalar != "\n" && (scalar.properties.generalCategory == .control || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029]
                .contains(scalar.value) || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value))
        }.map { "U+" + String($0.value, radix: 16) }
    }

    func testInspectPrintsNoRawControlsBidiOrSeparatorsInTextOrJSON() throws {
        let hostile = "csi \u{9B}31m bidi \u{202E}fdp.exe sep \u{2028} esc \u{1B}]0;x\u{07} del \u{7F}"
        let file = try activityFile(["type": "org.baton.test.note", "title": "Note",
                                     "userInfo": ["text": hostile, "key \u{202E}\u{9B}": ["list", hostile]]])
        let added = try session.baton(["offer", "--file", file])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)

        let text = try session.baton(["inspect", id])
        XCTAssertEqual(text.status, 0, text.errorOutput)
        XCTAssertEqual(rawUnsafe(text.output), [], text.output.debugDescription)
        XCTAssertTrue(text.output.contains("csi \u{FFFD}31m bidi \u{FFFD}fdp.exe"), text.output)

        let json = try session.baton(["inspect", id, "--json"])
        XCTAssertEqual(json.status, 0, json.errorOutput)
        XCTAssertEqual(rawUnsafe(json.output), [], json.output.debugDescription)
        XCTAssertTrue(json.output.contains(#"\u009b31m"#) && json.output.contains(#"\u202e"#)
                      && json.output.contains(#"\u2028"#), json.output)
        let info = try XCTUnwrap((json.json as? [String: Any])?["userInfo"] as? [String: Any], json.output)
        XCTAssertEqual(info["text"] as? String, hostile, "--json stays exact JSON")
        XCTAssertEqual((info["key \u{202E}\u{9B}"] as? [Any])?.last as? String, hostile)

        let listing = try session.baton(["activities", "--json"])
        XCTAssertEqual(rawUnsafe(listing.output), [], listing.output.debugDescription)
    }

    func testTitlesWithBidiControlsOrSeparatorsFromAppsAreRefused() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"), "gdbus is missing")
        for title in [#"Draft \u202etxt.exe"#, #"line\u2028break"#, #"csi \u009b2J"#, #"mark \u200f"#] {
            let result = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"), [
                "call", "--session", "--dest", "org.baton.Daemon", "--object-path", "/org/baton/Daemon",
                "--method", "org.baton.Daemon1.PublishCurrent", "x", "{'type': <'a.b'>, 'title': <'\(title)'>}",
            ])
            XCTAssertNotEqual(result.status, 0)
            XCTAssertTrue(result.errorOutput.contains("InvalidArgs") && result.errorOutput.contains("\"title\" must not hold"),
                          "\(title): \(result.errorOutput)")
        }
        try assertServiceAlive()
    }

    /// Offers an app adds (`AddOffer`) pass the checks every offer passes: a title or a
    /// device name with a bidirectional override, a control character or a line separator is
    /// refused, and nothing is listed or shown.
    func testOffersWithBidiControlsOrSeparatorsInTheirTitleOrDeviceAreRefused() throws {
        for title in ["\u{202E}moc.elgoog", "evil\u{1B}[31m", "csi \u{9B}2J", "line\u{2028}break"] {
            let file = try activityFile(["type": "org.example.unclaimed", "title": title, "webpageURL": "https://example.org/"])
            let result = try session.baton(["offer", "--file", file])
            XCTAssertEqual(result.status, 1, "\(title.debugDescription) was offered")
            XCTAssertTrue(result.errorOutput.contains("\"title\" must not hold"), result.errorOutput)
        }
        let file = try activityFile(["type": "org.example.unclaimed", "title": "Fine"])
        let device = try session.baton(["offer", "--file", file, "--device", "Pix\u{202E}el"])
        XCTAssertEqual(device.status, 1, "a device name with an override was offered")
        XCTAssertTrue(device.errorOutput.contains("the device name"), device.errorOutput)
        XCTAssertTrue(try activities().isEmpty, "nothing was offered")
        try assertServiceAlive()
    }

    /// A title with a tab, a line break and a right-to-left mark (common in right-to-left
    /// mail subjects) is cleaned by the app before it publishes: listed, never refused.
    func testAnAppsTitleWithTabsLineBreaksAndBidiMarksIsListedCleaned() throws {
        let app = try startNoteApp("rtl", text: "tab\there\nnext line \u{200F}شكرا\u{2028}end",
                                   waitForListing: false)
        let cleaned = "Note: tab here next line شكرا end"
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == cleaned } },
                      "listed as \(cleaned.debugDescription): \(app.child.log)")
        XCTAssertFalse(app.child.log.contains("refused the current activity"), app.child.log)
    }

    /// When the service still refuses what an app publishes, the app withdraws its activity
    /// rather than leave the service offering the earlier, stale one.
    func testAnActivityOutsideTheServicesLimitsIsPublishedWithinThem() throws {
        let app = try startNoteApp("refused", text: "fresh")
        kill(app.child.pid, SIGUSR2)   // an expiration that never comes, as a bug might set
        XCTAssertTrue(waitUntil { try activities().contains { $0["title"] as? String == "Note: refused" } },
                      "the activity is offered, as never expiring: \(app.child.log)")
        XCTAssertFalse(try activities().contains { $0["title"] as? String == "Note: fresh" }, "nothing stale is listed")
        XCTAssertFalse(app.child.log.contains("refused the current activity"), app.child.log)
    }

    @MainActor
    func testAHugeIDIsNotEchoedBack() async throws {
        let connection = try BusConnection.bus(at: session.busAddress)
        let huge = String(repeating: "x", count: 10 << 20)
        for method in ["Fetch", "Continue", "RemoveOffer"] {
            XCTAssertThrowsError(try connection.callSync("org.baton.Daemon", path: "/org/baton/Daemon",
                                                         interface: "org.baton.Daemon1", method: method,
                                                         arguments: [.string(huge)], timeout: 60)) { error in
                let message = (error as? BusError)?.message ?? "\(error)"
                XCTAssertLessThan(message.utf8.count, 1024, "\(method): \(message.prefix(200))")
                XCTAssertTrue(message.contains("no activity or offer has the id \"" + String(repeating: "x", count: 80) + "…\""),
                              "\(method): \(message.prefix(200))")
            }
        }
        try assertServiceAlive()
    }

    func testActivityFilesThatAreNotActivityFilesGetTheRightMessage() throws {
        func failure(_ arguments: [String]) throws -> String {
            let result = try session.baton(arguments, timeout: 20)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.output)")
            return result.errorOutput
        }
        let zero = try failure(["continue", "--file", "/dev/zero"])
        XCTAssertTrue(zero.contains("/dev/zero") && zero.contains("not a regular file"), zero)
        XCTAssertFalse(zero.contains("permission"), zero)
        let folder = try failure(["offer", "--file", session.root.path])
        XCTAssertTrue(folder.contains("a folder, not a regular file"), folder)

        let large = session.root.appendingPathComponent("large.json")
        try Data(repeating: UInt8(ascii: " "), count: 2 << 20).write(to: large)
        XCTAssertTrue(try failure(["continue", "--file", large.path]).contains("holds more than 1 MiB"))

        let cases: [(String, String)] = [
            ("{\n  \"type\": \"a.b\"\n  \"title\": \"x\"\n}", "not valid JSON at line 3, column 3"),
            ("{\"type\": \"a.b\",", "not valid JSON"),
            ("[1, 2]", "the top level is an array, not a JSON object"),
            ("\"a.b\"", "the top level is a string, not a JSON object"),
            ("{\"type\": 5}", "bad \"type\""),
            ("{\"type\": \"a.b\", \"userInfo\": [1]}", "bad \"userInfo\""),
            ("", "the file is empty"),
        ]
        for (json, expected) in cases {
            let file = session.root.appendingPathComponent("\(UUID().uuidString).json")
            try Data(json.utf8).write(to: file)
            let message = try failure(["offer", "--file", file.path])
            XCTAssertTrue(message.contains(expected), "\(json.debugDescription): \(message)")
            XCTAssertFalse(message.contains("not a JSON object") && !expected.contains("not a JSON object"), message)
        }
        XCTAssertTrue(try activities().isEmpty, "nothing was offered")
        try assertServiceAlive()
    }

    /// A broken `paired-devices.json` or `batond.conf` stops batond with a message naming
    /// the file and what is wrong, not as an identity error.
    func testBrokenConfigFilesAreNamedAndNotCalledIdentityErrors() throws {
        let cases: [(String, String, String)] = [
            ("paired-devices.json", "{\"not\": \"a list\"}", "not a list of paired devices"),
            ("batond.conf", "[network]\npeers=192.0.2.1:48100;nowhere\n", "peers: \"nowhere\" is not HOST:PORT"),
        ]
        for (name, contents, expected) in cases {
            let directory = session.root.appendingPathComponent("config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent(name)
            try Data(contents.utf8).write(to: file)
            let child = try session.start(ServiceSession.product("batond"),
                                          ["--config-dir", directory.path, "--no-discovery", "--listen", "127.0.0.1:0"],
                                          name: "broken-\(name)")
            XCTAssertEqual(child.waitForExit(timeout: 20), 1, child.log)
            XCTAssertTrue(child.log.contains("\(file.path): ") && child.log.contains(expected), child.log)
            XCTAssertFalse(child.log.contains("network identity"), child.log)
            XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), contents, "the file is left as it is")
        }
        try assertServiceAlive()
    }
}
