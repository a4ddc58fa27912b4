import Foundation
import ServiceFixtures
import XCTest

/// A page open in a real headless browser on device A, with Baton's extension and native
/// host, continued on device B: a page of `mail.example.org`, whose association file (a test
/// site in A's network namespace, its certificate from a test CA B's batond trusts with
/// `--trust-ca`) lists MailComposer, opens in the MailComposer B's batond starts, filled in;
/// a page of another site opens in B's default browser. The two batonds run in two network
/// namespaces, paired as people pair them. Run from Chromium (``BrowserToMailComposerTests``)
/// and Firefox ESR (``FirefoxToMailComposerTests``).
class BrowserToMailComposerScenarios: XCTestCase {
    class var browserKind: TestBrowserKind { .chromium }

    private var namespaces: NetworkNamespacePair!
    private var site: TestWebSite!
    private var devices: DevicePair!
    private var browser: (any TestBrowser)?
    private var opened: URL!

    override func setUpWithError() throws {
        try MailComposerProcess.requirements()
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement, TestWebSite.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        if let missing = Self.browserKind.missingRequirement {
            guard Self.browserKind.mustBeInstalled else { throw XCTSkip(missing) }
            XCTFail(missing)
            throw FixtureError(missing)
        }
        namespaces = try NetworkNamespacePair(prefix: "baton-\(Self.browserKind.rawValue)")
        site = try TestWebSite(names: ["mail.example.org"])
        try site.serve(".well-known/baton-app-site-association",
                       body: TestWebSite.associationFile(["org.example.org.example.MailComposer"]))
        try site.start(port: 443, namespace: namespaces.a)
        try site.nameHosts(in: namespaces.b, address: namespaces.addressA)
        devices = try DevicePair(argumentsB: ["--trust-ca", site.authorityFile.path], namespaces: namespaces)
        try devices.pair()
        let app = MailComposerProcess(root: devices.b.root.appendingPathComponent("launched"))
        try app.install(in: devices.b, ["--standalone"])
        opened = try devices.b.installRecordingBrowser()
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            devices?.printLogs()
            print("--- \(Self.browserKind.rawValue)\n\(browser?.child.log.suffix(3000) ?? "")")
        }
        browser?.quit()
        if let b = devices?.b {
            for pid in (try? b.baton(["apps", "--json"]).json as? [[String: Any]])?.compactMap({ $0["pid"] as? Int }) ?? [] {
                kill(Int32(pid), SIGTERM)
            }
        }
        devices?.tearDown()
        site?.remove()
        namespaces?.remove()
    }

    /// Waits until B lists A's browser page at `url`; its id.
    private func offerOnB(_ url: String, timeout: TimeInterval = 20) -> String? {
        var id: String?
        waitUntil(timeout: timeout) {
            let listed = try devices.b.baton(["activities", "--json"]).json as? [[String: Any]] ?? []
            id = listed.first { $0["type"] as? String == "NSUserActivityTypeBrowsingWeb" && $0["webpage-url"] as? String == url }?["id"]
                as? String
            return id != nil
        }
        return id
    }

    private func currentTitleOnB() throws -> String? {
        ((try devices.b.baton(["status", "--json"]).json as? [String: Any])?["current"] as? [String: Any])?["title"] as? String
    }

    /// The browser's name in the draft's subject: "From Chromium".
    private var browserName: String { Self.browserKind.rawValue.prefix(1).uppercased() + Self.browserKind.rawValue.dropFirst() }

    func checkAMailPageContinuesInMailComposerAndAnotherSiteInTheBrowser() throws {
        let verified = try devices.b.baton(["domains", "--verify", "--json"]).json as? [[String: Any]] ?? []
        XCTAssertEqual(verified.first { $0["app-id"] as? String == "org.example.MailComposer" }?["state"] as? String, "verified",
                       "\(verified)")

        let compose = "https://mail.example.org/compose?to=bob%40example.org&subject=From%20\(browserName)&body=Sent%20from%20A"
        let started = try Self.browserKind.start(session: devices.a, urls: [compose])
        browser = started
        let id = try XCTUnwrap(offerOnB(compose, timeout: Self.browserKind.firstPageTimeout), "B never listed A's page")
        var result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { try self.currentTitleOnB() == "Draft: From \(self.browserName)" },
                      "MailComposer on B shows the message: \(String(describing: try? currentTitleOnB()))")
        let draft = (try devices.b.baton(["inspect", "--json"]).json as? [String: Any])?["userInfo"] as? [String: Any]
        XCTAssertEqual(draft?["to"] as? String, "bob@example.org")
        XCTAssertEqual(draft?["body"] as? String, "Sent from A")
        XCTAssertEqual((try? String(contentsOf: opened, encoding: .utf8)) ?? "", "", "nothing went to B's browser")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            try X11Desktop().screenshot(to: URL(fileURLWithPath: folder)
                .appendingPathComponent("web-page-from-\(Self.browserKind.rawValue)-in-mailcomposer.png").path)
        }

        // Another site's page, in a new tab, opens in B's default browser.
        let story = "https://news.example.com/story/1"
        try started.openTab(story)
        let storyID = try XCTUnwrap(offerOnB(story), "B never listed A's second page")
        result = try devices.b.baton(["continue", storyID])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: self.opened, encoding: .utf8)) ?? "") == story + "\n" },
                      "B's default browser opened the page")
    }
}
