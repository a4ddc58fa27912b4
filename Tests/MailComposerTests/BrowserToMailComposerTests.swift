import Foundation
import ServiceFixtures
import XCTest

/// A page open in a real headless Chromium on device A, with Baton's extension and native
/// host, continued on device B: a page of `mail.example.org`, whose association file (a test
/// site in A's network namespace, its certificate from a test CA B's batond trusts with
/// `--trust-ca`) lists MailComposer, opens in the MailComposer B's batond starts, filled in;
/// a page of another site opens in B's default browser. The two batonds run in two network
/// namespaces, paired as people pair them.
final class BrowserToMailComposerTests: XCTestCase {
    private var namespaces: NetworkNamespacePair!
    private var site: TestWebSite!
    private var devices: DevicePair!
    private var browser: HeadlessChromium?
    private var opened: URL!

    override func setUpWithError() throws {
        try MailComposerProcess.requirements()
        for missing in [ServiceSession.missingRequirement, NetworkNamespacePair.missingRequirement, TestWebSite.missingRequirement] {
            if let missing { throw XCTSkip(missing) }
        }
        guard HeadlessChromium.executable != nil else {
            XCTFail(HeadlessChromium.missingMessage)
            throw FixtureError(HeadlessChromium.missingMessage)
        }
        namespaces = try NetworkNamespacePair(prefix: "baton-browser")
        site = try TestWebSite(names: ["mail.example.org"])
        try site.serve(".well-known/baton-app-site-association",
                       body: TestWebSite.associationFile(["org.example.org.example.MailComposer"]))
        try site.start(port: 443, namespace: namespaces.a)
        try site.nameHosts(in: namespaces.b, address: namespaces.addressA)
        devices = try DevicePair(argumentsB: ["--trust-ca", site.authorityFile.path], namespaces: namespaces)
        try devices.pair()

        let b = devices.b
        let app = MailComposerProcess(root: b.root.appendingPathComponent("launched"))
        try app.install(in: b, ["--standalone"])
        opened = try b.installRecordingBrowser()
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            devices?.printLogs()
            print("--- chromium\n\(browser?.child.log.suffix(3000) ?? "")")
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
    private func offerOnB(_ url: String) -> String? {
        var id: String?
        waitUntil(timeout: 20) {
            let listed = try devices.b.baton(["activities", "--json"]).json as? [[String: Any]] ?? []
            id = listed.first { $0["type"] as? String == "NSUserActivityTypeBrowsingWeb" && $0["webpage-url"] as? String == url }?["id"] as? String
            return id != nil
        }
        return id
    }

    private func currentTitleOnB() throws -> String? {
        ((try devices.b.baton(["status", "--json"]).json as? [String: Any])?["current"] as? [String: Any])?["title"] as? String
    }

    func testAMailPageInChromiumContinuesInMailComposerAndAnotherSiteInTheBrowser() throws {
        let verified = try devices.b.baton(["domains", "--verify", "--json"]).json as? [[String: Any]] ?? []
        XCTAssertEqual(verified.first { $0["app-id"] as? String == "org.example.MailComposer" }?["state"] as? String, "verified",
                       "\(verified)")

        let compose = "https://mail.example.org/compose?to=bob%40example.org&subject=From%20Chromium&body=Sent%20from%20A"
        let chromium = try HeadlessChromium(session: devices.a, urls: [compose])
        browser = chromium
        let id = try XCTUnwrap(offerOnB(compose), "B never listed A's page")
        var result = try devices.b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { try self.currentTitleOnB() == "Draft: From Chromium" },
                      "MailComposer on B shows the message: \(String(describing: try? currentTitleOnB()))")
        let draft = (try devices.b.baton(["inspect", "--json"]).json as? [String: Any])?["userInfo"] as? [String: Any]
        XCTAssertEqual(draft?["to"] as? String, "bob@example.org")
        XCTAssertEqual(draft?["body"] as? String, "Sent from A")
        XCTAssertEqual((try? String(contentsOf: opened, encoding: .utf8)) ?? "", "", "nothing went to B's browser")
        if let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] {
            try X11Desktop().screenshot(to: URL(fileURLWithPath: folder).appendingPathComponent("web-page-in-mailcomposer.png").path)
        }

        let story = "https://news.example.com/story/1"
        try chromium.openTab(story)
        let storyID = try XCTUnwrap(offerOnB(story), "B never listed A's second page")
        result = try devices.b.baton(["continue", storyID])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil { ((try? String(contentsOf: self.opened, encoding: .utf8)) ?? "") == story + "\n" },
                      "B's default browser opened the page")
    }
}
