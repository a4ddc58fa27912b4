import Foundation
import ServiceFixtures
import XCTest

/// Web pages continued into MailComposer through its verified claim on `mail.example.org`:
/// batond runs in a network namespace whose hosts file names a test web site in another
/// (OpenSSL's server, its certificate from a test authority batond trusts with `--trust-ca`).
/// A compose page opens a message filled in, a draft page the draft when it is here; another
/// site's pages, a draft that is not here, and every page once the site stops confirming the
/// claim, open in the default browser (a script that writes down what it was given).
final class MailComposerWebPageTests: XCTestCase {
    private var session: ServiceSession!
    private var namespaces: NetworkNamespacePair!
    private var site: TestWebSite!
    private var desktop: (any TestDesktop)!
    private var opened: URL!
    private let batonFile = ".well-known/baton-app-site-association"

    override func setUpWithError() throws {
        try MailComposerProcess.requirements()
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement, TestWebSite.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        desktop = try TestDesktopKind.x11.make()
        session = try ServiceSession()
        session.environmentOverrides = desktop.environment
        namespaces = try NetworkNamespacePair(prefix: "baton-web")
        site = try TestWebSite(names: ["mail.example.org"])
        try serveAssociation(listing: ["org.example.org.example.MailComposer"])
        try site.start(port: 443, namespace: namespaces.b)
        try site.nameHosts(in: namespaces.a, address: namespaces.addressB)
        try installBrowser()
        try session.startBus()
        let app = MailComposerProcess(root: session.root.appendingPathComponent("launched"))
        try app.install(in: session, ["--standalone"])
        try session.startBatond(["--no-discovery", "--trust-ca", site.authorityFile.path, "--domain-recheck-minimum", "2"],
                                namespace: namespaces.a)
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 { session?.printLogs() }
        for pid in (try? session.baton(["apps", "--json"]).json as? [[String: Any]])?.compactMap({ $0["pid"] as? Int }) ?? [] {
            kill(Int32(pid), SIGTERM)
        }
        session?.tearDown()
        site?.remove()
        namespaces?.remove()
        desktop?.stop()
    }

    private func serveAssociation(listing apps: [String], maximumAge: Int = 3) throws {
        try site.serve(batonFile, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=\(maximumAge)"],
                       body: TestWebSite.associationFile(apps))
    }

    /// A default browser for `https:` links that writes the link it opens to `opened`.
    private func installBrowser() throws {
        opened = try session.installRecordingBrowser()
    }

    private var browserOpened: [String] {
        ((try? String(contentsOf: opened, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Continues the page `url` as the browser's activity would be continued.
    private func continuePage(_ url: String) throws -> CommandResult {
        let file = session.root.appendingPathComponent("page-\(UUID().uuidString).json")
        let object: [String: Any] = ["type": "NSUserActivityTypeBrowsingWeb", "title": "A page", "webpageURL": url]
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        return try session.baton(["continue", "--file", file.path])
    }

    private func claim() throws -> [String: Any]? {
        (try session.baton(["domains", "--json"]).json as? [[String: Any]])?
            .first { $0["app-id"] as? String == "org.example.MailComposer" }
    }

    private func currentTitle() throws -> String? {
        let status = try session.baton(["status", "--json"]).json as? [String: Any]
        return (status?["current"] as? [String: Any])?["title"] as? String
    }

    private func inspectedDraft() throws -> [String: Any]? {
        (try session.baton(["inspect", "--json"]).json as? [String: Any])?["userInfo"] as? [String: Any]
    }

    func testPagesOfTheVerifiedDomainOpenInMailComposerAndTheRestInTheBrowser() throws {
        XCTAssertTrue(waitUntil { try claim()?["state"] as? String == "verified" }, "\(String(describing: try? claim()))")
        let verified = try XCTUnwrap(claim())
        XCTAssertEqual(verified["source"] as? String, "https://mail.example.org/\(batonFile)")
        XCTAssertEqual(verified["domain"] as? String, "mail.example.org")
        let table = try session.baton(["domains"])
        XCTAssertTrue(table.output.contains("org.example.MailComposer  mail.example.org  verified"), table.output)

        // A compose page: batond starts MailComposer, which opens the message filled in.
        var result = try continuePage("https://mail.example.org/compose?to=bob%40example.org&subject=From%20the%20web&body=Hello%20Bob")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { try currentTitle() == "Draft: From the web" }, "\(String(describing: try? currentTitle()))")
        let first = try XCTUnwrap(inspectedDraft())
        XCTAssertEqual(first["to"] as? String, "bob@example.org")
        XCTAssertEqual(first["body"] as? String, "Hello Bob")
        let firstID = try XCTUnwrap(first["draftID"] as? String)
        XCTAssertEqual(browserOpened, [], "nothing went to the browser")

        // A draft page opens the draft that is here, and one that is not goes to the browser.
        result = try continuePage("https://mail.example.org/compose?subject=Second")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { try currentTitle() == "Draft: Second" })
        result = try continuePage("https://mail.example.org/drafts/\(firstID)")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { try currentTitle() == "Draft: From the web" }, "the first draft's window came forward")
        let unknown = "https://mail.example.org/drafts/\(UUID().uuidString.lowercased())"
        result = try continuePage(unknown)
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { self.browserOpened == [unknown] }, "\(browserOpened)")

        // Another site's page opens in the default browser.
        result = try continuePage("https://news.example.com/story/1")
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { self.browserOpened.last == "https://news.example.com/story/1" }, "\(browserOpened)")

        // The file changes to list another app only: the claim fails at the next fetch, and
        // the site's pages go to the browser, not to MailComposer.
        try serveAssociation(listing: ["org.example.org.example.Other"])
        let refused = try XCTUnwrap(try session.baton(["domains", "--verify", "--json"]).json as? [[String: Any]])
        XCTAssertEqual(refused.first?["state"] as? String, "failed", "\(refused)")
        XCTAssertEqual(refused.first?["reason"] as? String,
                       "https://mail.example.org/\(batonFile) does not list org.example.org.example.MailComposer")
        let excluded = "https://mail.example.org/compose?subject=Excluded"
        result = try continuePage(excluded)
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { self.browserOpened.last == excluded }, "an excluded app is not used: \(browserOpened)")
        XCTAssertEqual(try currentTitle(), "Draft: From the web", "MailComposer opened no new message")
        let doctor = try session.baton(["doctor"])
        XCTAssertTrue(doctor.output.contains("✘ domains: 1 of 1 web domain claim not confirmed by the site"), doctor.output)

        // Listed again, then the site goes away: the answer fetched holds until it expires
        // (6 s here), then the claim fails and pages go to the browser.
        try serveAssociation(listing: ["org.example.org.example.MailComposer"], maximumAge: 6)
        let again = try XCTUnwrap(try session.baton(["domains", "--verify", "--json"]).json as? [[String: Any]])
        XCTAssertEqual(again.first?["state"] as? String, "verified", "\(again)")
        site.stop()
        let checked = try XCTUnwrap(try session.baton(["domains", "--verify", "--json"]).json as? [[String: Any]])
        XCTAssertEqual(checked.first?["state"] as? String, "verified", "\(checked)")
        XCTAssertTrue((checked.first?["reason"] as? String ?? "").contains("the latest fetch failed"), "\(checked)")
        XCTAssertTrue(waitUntil(timeout: 15) { try claim()?["state"] as? String == "failed" }, "\(String(describing: try? claim()))")
        XCTAssertTrue((try claim()?["reason"] as? String ?? "").contains("cannot reach https://mail.example.org"),
                      "\(String(describing: try? claim()))")
        let page = "https://mail.example.org/compose?subject=Third"
        result = try continuePage(page)
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { self.browserOpened.last == page }, "an unverified claim is not used: \(browserOpened)")
    }
}
