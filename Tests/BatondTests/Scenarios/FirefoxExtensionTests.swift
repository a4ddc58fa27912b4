import Foundation
import ServiceFixtures
import XCTest

/// ``BrowserExtensionScenarios`` in a real headless Firefox ESR; skipped, saying so, where
/// firefox-esr is not installed.
final class FirefoxExtensionTests: BrowserExtensionScenarios {
    override class var browserKind: TestBrowserKind { .firefox }

    func testTheOpenPageIsTheCurrentActivity() throws { try checkTheOpenPageIsTheCurrentActivity() }
    func testSwitchingClosingNavigatingAndRetitlingUpdateIt() throws { try checkSwitchingClosingNavigatingAndRetitlingUpdateIt() }
    func testAPrivateWindowAloneStartsTheHostAndPublishesNothing() throws {
        try checkAPrivateWindowAloneStartsTheHostAndPublishesNothing()
    }
    func testQuittingFirefoxResigns() throws { try checkQuittingTheBrowserResigns() }

    /// Firefox started the host from the manifest in HOME's .mozilla folder, for the
    /// extension's own id (the host's lines go to Firefox's Browser Console, not its log).
    override func checkHowTheHostStarted(_ host: [String: Any]) throws {
        let pid = try XCTUnwrap(host["pid"] as? Int)
        let arguments = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8).split(separator: "\0").map(String.init)
        let firefox = try XCTUnwrap(startedFirefox)
        XCTAssertEqual(arguments.dropFirst(), [
            session.root.appendingPathComponent("home/.mozilla/native-messaging-hosts/org.baton.browser_host.json").path,
            firefox.extensionID,
        ], "\(arguments)")
    }

    /// Starts Firefox on the page `name` titled `title` and waits until it is published;
    /// Firefox and that page's tab.
    private func startFirefox(showing name: String, titled title: String) throws -> (HeadlessFirefox, String) {
        pages.setTitle(title, for: name)
        try startBrowser(urls: [pages.url(name)])
        waitForFirstPage(pages.url(name), titled: title)
        let firefox = try XCTUnwrap(startedFirefox)
        return (firefox, try XCTUnwrap(try firefox.tabs().first))
    }

    /// A private window in front of a normal one: nothing is current, and its page is never
    /// listed; back in the normal window, its page again.
    func testPrivateWindowsAreNeverPublished() throws {
        pages.setTitle("Baton private page", for: "private")
        let (firefox, normalTab) = try startFirefox(showing: "public", titled: "Baton public page")

        try firefox.openPrivateWindow(pages.url("private"))
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil },
                      "the page behind a private window is still current: \(String(describing: try? current()))")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(try current(), "a private window's page was published")
        XCTAssertNotNil(try firefox.tab(showing: pages.url("private")), "the private page is not open")

        try firefox.activate(normalTab)
        waitForPage(pages.url("public"), titled: "Baton public page")
        let listed = try activities().compactMap { $0["webpage-url"] as? String }
        XCTAssertFalse(listed.contains(pages.url("private")), "\(listed)")
    }

    /// The person navigating in the tab in front (as typing an address does) updates it.
    func testThePersonNavigatingUpdatesIt() throws {
        pages.setTitle("Baton second page", for: "second")
        let (firefox, tab) = try startFirefox(showing: "first", titled: "Baton first page")
        try firefox.activate(tab)
        try firefox.marionette().call("WebDriver:Navigate", ["url": pages.url("second")])
        waitForPage(pages.url("second"), titled: "Baton second page")
        XCTAssertEqual(try firefox.tab(showing: pages.url("second")), tab)
    }
}
