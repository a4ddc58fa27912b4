import Foundation
import ServiceFixtures
import XCTest

/// Phones through KDE Connect, for real: two kdeconnectd (Debian's 22.12, offscreen) in two
/// network namespaces, paired through their own D-Bus API, B announcing itself as a phone.
/// batond runs on A's bus beside A's kdeconnectd: it lists B as a phone, sends it an
/// activity's web page (B's kdeconnectd receives exactly that link), refuses an activity
/// without one, and lists a link B shares as an offer of a web page that continues in the
/// default browser. `scripts/setup.sh` installs Debian's `kdeconnect`; where it is missing (or
/// without root, for the namespaces) they are skipped.
final class PhoneTests: XCTestCase {
    private var sessionA: ServiceSession!
    private var sessionB: ServiceSession!
    private var namespaces: NetworkNamespacePair!
    private var phones: KDEConnectPair!
    private var batond: ChildProcess!

    override func setUpWithError() throws {
        for missing in [ServiceSession.missingRequirement, KDEConnectPair.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        sessionA = try ServiceSession()
        sessionB = try ServiceSession()
        try sessionA.startBus()
        try sessionB.startBus()
        namespaces = try NetworkNamespacePair(prefix: "baton-phone")
        phones = try KDEConnectPair(sessionA: sessionA, sessionB: sessionB, namespaces: namespaces,
                                    nameA: "Desk", nameB: "Pixel", bIsPhone: true)
        try phones.pair()
        batond = try sessionA.startBatond()
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            sessionA?.printLogs()
            phones?.printLogs()
        }
        phones?.stop()
        sessionA?.tearDown()
        sessionB?.tearDown()
        namespaces?.remove()
    }

    private func phoneRecord() throws -> [String: Any]? {
        (try sessionA.baton(["devices", "--json"]).json as? [[String: Any]])?.first { $0["kind"] as? String == "phone" }
    }

    private func offer(_ object: [String: Any]) throws -> String {
        let file = sessionA.root.appendingPathComponent("\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        let added = try sessionA.baton(["offer", "--file", file.path, "--device", "tablet"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testThePhoneIsListedAndReceivesAnActivitysWebPage() throws {
        XCTAssertTrue(waitUntil(timeout: 10) { try self.phoneRecord()?["connected"] as? Bool == true },
                      "\(String(describing: try? phoneRecord()))")
        let phone = try XCTUnwrap(phoneRecord())
        XCTAssertEqual(phone["name"] as? String, "Pixel")
        XCTAssertEqual(phone["via"] as? String, "KDE Connect")
        XCTAssertEqual(phone["id"] as? String, "kdeconnect:\(phones.idB)")
        XCTAssertEqual(phone["paired"] as? Bool, true)
        let table = try sessionA.baton(["devices"]).output
        XCTAssertTrue(table.contains("Pixel") && table.contains("phone") && table.contains("via KDE Connect"), table)
        XCTAssertTrue(try sessionA.baton(["status"]).output.contains("phones: Pixel (KDE Connect)"))

        let page = "https://mail.example.org/drafts/42?from=baton#top"
        let id = try offer(["type": "org.example.mail.compose", "title": "Lunch", "webpageURL": page])
        let sending = Date()
        let sent = try sessionA.baton(["send", id, "Pixel"])
        XCTAssertEqual(sent.status, 0, sent.errorOutput)
        XCTAssertEqual(sent.output, "Sent to Pixel.\n")
        XCTAssertTrue(phones.waitForReceivedURL(page, on: .b), "the phone received \(phones.receivedURLs(on: .b))")
        XCTAssertEqual(phones.receivedURLs(on: .b), [page], "exactly that link, once")
        if let received = phones.timeReceived(page, on: .b) {
            // From `baton send` to the phone's kdeconnectd announcing the link: a figure in docs/phones.md.
            print(String(format: "figure: baton send -> the phone's kdeconnectd received the link: %.0f ms",
                         received.timeIntervalSince(sending) * 1000))
        }

        let noPage = try offer(["type": "org.example.mail.compose", "title": "Notes"])
        let refused = try sessionA.baton(["send", noPage, "Pixel"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errorOutput.contains("“Notes” has no web page, so it cannot be sent to Pixel"), refused.errorOutput)
        let unknown = try sessionA.baton(["send", id, "Nokia"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.errorOutput.contains("no paired phone is named \"Nokia\" (phones: Pixel)"), unknown.errorOutput)
        XCTAssertEqual(phones.receivedURLs(on: .b), [page], "nothing else reached the phone")
    }

    func testALinkThePhoneSharesIsAnOfferThatOpensInTheBrowser() throws {
        let opened = try sessionA.installRecordingBrowser()
        XCTAssertTrue(waitUntil(timeout: 10) { try self.phoneRecord() != nil })

        let link = "https://news.example.com/story/7?ref=phone"
        try phones.shareURL(fromB: link)
        var listed: [String: Any]?
        XCTAssertTrue(waitUntil(timeout: 10) {
            listed = (try self.sessionA.baton(["activities", "--json"]).json as? [[String: Any]])?
                .first { $0["webpage-url"] as? String == link }
            return listed != nil
        }, "the shared link is listed as an offer")
        XCTAssertEqual(listed?["type"] as? String, "NSUserActivityTypeBrowsingWeb")
        XCTAssertEqual(listed?["device"] as? String, "Pixel")
        XCTAssertEqual(listed?["title"] as? String, "news.example.com")
        let id = try XCTUnwrap(listed?["id"] as? String)
        let result = try sessionA.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: opened, encoding: .utf8)) ?? "") == link + "\n" })

        // The phone's next link takes the place of its last: one offer per phone.
        let first = "https://news.example.com/story/8"
        let second = "https://news.example.com/story/9"
        try phones.shareURL(fromB: first)
        XCTAssertNotNil(sessionA.waitForActivity(titled: "news.example.com"))
        try phones.shareURL(fromB: second)
        XCTAssertTrue(waitUntil(timeout: 10) {
            let urls = (try self.sessionA.baton(["activities", "--json"]).json as? [[String: Any]] ?? []).compactMap { $0["webpage-url"] as? String }
            return urls == [second]
        }, "only the phone's latest link is listed")
    }

    func testAnOffersNotificationSendsItsPageToThePhone() throws {
        XCTAssertTrue(waitUntil(timeout: 10) { try self.phoneRecord()?["connected"] as? Bool == true })
        let log = sessionA.root.appendingPathComponent("notifications.jsonl")
        let server = try sessionA.start(ServiceSession.product("BatonTestApp"),
                                        ["notification-server", "--log", log.path, "--invoke", "send:kdeconnect:\(phones.idB)"],
                                        name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") })
        let page = "https://example.org/articles/9"
        _ = try offer(["type": "org.example.unclaimed", "title": "Article", "webpageURL": page])
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Send to Pixel") },
                      "the notification offers to send the page to the phone")
        XCTAssertTrue(phones.waitForReceivedURL(page, on: .b), "the phone received \(phones.receivedURLs(on: .b))")
    }

    /// What an app's "Send to Phone" menu does, through BatonGtk (`HandoffClient.phones()` and
    /// `sendCurrentActivity(to:)`): the app lists the phone and sends its current activity's
    /// page; an app whose activity has no page is told why.
    func testAnAppSendsItsCurrentActivitysPageToThePhoneThroughHandoffClient() throws {
        XCTAssertTrue(waitUntil(timeout: 10) { try self.phoneRecord()?["connected"] as? Bool == true })
        try sessionA.installTestAppEntry(id: "org.baton.TestApp")
        let page = "https://notes.example.org/n/7"
        func current() throws -> String? {
            ((try sessionA.baton(["status", "--json"]).json as? [String: Any])?["current"] as? [String: Any])?["title"] as? String
        }
        let app = try sessionA.start(ServiceSession.product("BatonTestApp"),
                                     ["app", "--text", "with a page", "--webpage", page, "--send-to-phone", "Pixel"], name: "app")
        XCTAssertTrue(waitUntil(timeout: 15) { try current() == "Note: with a page" }, "the note is current")
        kill(app.pid, SIGHUP)
        XCTAssertTrue(waitUntil(timeout: 25) { app.log.contains("note: sent to Pixel") || app.log.contains("note: send failed") }, app.log)
        XCTAssertTrue(app.log.contains("note: phones: Pixel (reachable)"), "the app listed the phone: \(app.log)")
        XCTAssertTrue(app.log.contains("note: sent to Pixel"), app.log)
        XCTAssertTrue(phones.waitForReceivedURL(page, on: .b), "the phone received \(phones.receivedURLs(on: .b))")
        XCTAssertEqual(phones.receivedURLs(on: .b), [page], "exactly that link, once")
        app.stop()

        let pageless = try sessionA.start(ServiceSession.product("BatonTestApp"),
                                          ["app", "--text", "no page", "--send-to-phone", "Pixel"], name: "pageless")
        XCTAssertTrue(waitUntil(timeout: 15) { try current() == "Note: no page" }, "the page-less note is current")
        kill(pageless.pid, SIGHUP)
        XCTAssertTrue(waitUntil(timeout: 25) { pageless.log.contains("note: sent to") || pageless.log.contains("note: send failed") },
                      pageless.log)
        XCTAssertTrue(pageless.log.contains("note: send failed") && pageless.log.contains("has no web page"), pageless.log)
        XCTAssertEqual(phones.receivedURLs(on: .b), [page], "nothing else reached the phone")
        pageless.stop()
    }
}
