import Foundation
import ServiceFixtures
import XCTest

/// Links a phone shares, as kdeconnectd signals them (`shareReceived`), from a stand-in that
/// passes on any text at all, which Debian's kdeconnectd (whose `QUrl` empties a link whose
/// host it cannot read) never does: a host holding control or bidirectional characters, or
/// that is not a valid name, is not listed and is said in the log; an internationalized host is
/// titled in punycode; a link to a local address is marked as one, in the offer and in its
/// notification.
final class PhoneLinkTests: ServiceTestCase {
    private var notifications: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        notifications = session.root.appendingPathComponent("notifications.jsonl")
        let server = try session.start(ServiceSession.product("BatonTestApp"), ["notification-server", "--log", notifications.path],
                                       name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
        let phone = try session.start(ServiceSession.product("BatonTestApp"), ["kdeconnect-service"], name: "kdeconnect")
        XCTAssertTrue(waitUntil { phone.log.contains("kdeconnect stand-in ready") }, phone.log)
        XCTAssertTrue(waitUntil(timeout: 10) {
            (try self.session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []).contains { $0["name"] as? String == "Pixel" }
        }, "batond lists the stand-in's phone")
    }

    /// The phone shares `link`: kdeconnectd's `shareReceived` with it as its text.
    private func share(_ link: String) throws {
        let result = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"), [
            "call", "--session", "--dest", "org.kde.kdeconnect", "--object-path", "/modules/kdeconnect/devices/pixel/share",
            "--method", "org.baton.Test.Share.Receive", link,
        ])
        XCTAssertEqual(result.status, 0, result.errorOutput)
    }

    /// Shares `link`, and waits until the offer of it is listed; its title.
    private func sharedTitle(_ link: String) throws -> String? {
        try share(link)
        var title: String?
        _ = waitUntil(timeout: 10) {
            title = try self.activities().first { $0["webpage-url"] as? String == link }?["title"] as? String
            return title != nil
        }
        return title
    }

    /// The summaries of the notifications shown so far.
    private func notificationSummaries() -> [String] {
        ((try? String(contentsOf: notifications, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["summary"] as? String
        }
    }

    private func unsafe(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            $0.properties.generalCategory == .control || [0x2028, 0x2029, 0x200E, 0x200F, 0x061C].contains($0.value)
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }
    }

    func testHostsWithControlOrBidiCharactersOrThatAreNotNamesAreNotListed() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"), "gdbus is missing")
        let refused = [
            "https://%E2%80%AEmoc.elgoog/", "https://evil%1B%5B31m.example/", "https://a%C2%9B31mb.example/",
            "https://a%E2%80%A8b.example/", "https://exa_mple.com/", "http://2130706433/", "http://0x7f.1/",
        ]
        for link in refused { try share(link) }
        // Signals arrive in order: once the next link is listed, the ones before were read.
        XCTAssertEqual(try sharedTitle("https://news.example.com/7"), "news.example.com")
        let listed = try activities()
        XCTAssertEqual(listed.compactMap { $0["webpage-url"] as? String }, ["https://news.example.com/7"], "\(listed)")
        let lines = batond.log.split(separator: "\n").filter { $0.contains("Pixel shared a web page that is not listed") }
        XCTAssertEqual(lines.count, refused.count, batond.log)
        XCTAssertFalse(lines.contains { unsafe(String($0)) }, "the log quotes the hosts safely: \(lines)")
        XCTAssertTrue(lines.first?.contains("holds control or bidirectional characters") ?? false, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("\"exa_mple.com\" is not a valid name") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("\"2130706433\" ends in a number") }, "\(lines)")
        let summaries = notificationSummaries()
        XCTAssertEqual(summaries.filter(unsafe), [], "no notification summary holds them")
        XCTAssertEqual(summaries.last, "Open in browser “news.example.com”")
    }

    func testAnInternationalizedHostIsTitledInPunycode() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"), "gdbus is missing")
        XCTAssertEqual(try sharedTitle("https://%D0%B0pple.com/login"), "xn--pple-43d.com", "a Cyrillic а is not shown as an a")
        XCTAssertEqual(try sharedTitle("https://b%C3%BCcher.example/x"), "xn--bcher-kva.example")
        XCTAssertEqual(try sharedTitle("https://NEWS.Example.COM./"), "news.example.com")
        XCTAssertEqual(notificationSummaries().last, "Open in browser “news.example.com”")
    }

    func testLinksToLocalAddressesAreMarkedInTheOfferAndItsNotification() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus"), "gdbus is missing")
        let local = [
            ("http://127.0.0.1:631/admin/?OP=add-printer", "127.0.0.1:631"), ("http://[::1]:631/", "[::1]:631"),
            ("http://192.168.1.1/", "192.168.1.1"), ("http://10.0.0.138:8080/setup", "10.0.0.138:8080"),
            ("http://172.20.0.1/", "172.20.0.1"), ("http://169.254.169.254/latest/", "169.254.169.254"),
            ("http://100.100.100.100/", "100.100.100.100"), ("http://[fd00::1]/", "[fd00::1]"), ("http://[fe80::1]/", "[fe80::1]"),
            ("http://[::ffff:127.0.0.1]/", "[::ffff:127.0.0.1]"), ("http://localhost:8080/", "localhost:8080"),
            ("http://api.localhost/", "api.localhost"), ("http://printer.local/", "printer.local"), ("http://router/", "router"),
        ]
        for (link, host) in local {
            XCTAssertEqual(try sharedTitle(link), "\(host) (a page on a local address)", link)
            XCTAssertTrue(waitUntil { self.notificationSummaries().last == "Open in browser “\(host) (a page on a local address)”" },
                          "\(link): \(notificationSummaries().suffix(1))")
        }
        for (link, host) in [("https://example.org:8443/", "example.org"), ("http://8.8.8.8/", "8.8.8.8"),
                             ("http://172.32.0.1/", "172.32.0.1"), ("http://[2001:db8::1]/", "[2001:db8::1]")] {
            XCTAssertEqual(try sharedTitle(link), host, "\(link) is not marked")
        }
    }
}
