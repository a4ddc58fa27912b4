import Foundation
import ServiceFixtures
import XCTest

/// Baton's browser extension in a real headless Firefox ESR, with the native messaging host
/// and batond on the test's bus, as ``BrowserExtensionTests`` runs it in Chromium: the page in
/// front becomes the browser's current activity, follows tab switches, closing, navigation
/// and retitling, goes when no http or https page is in front or Firefox quits, and a private
/// window never shows. Skipped, saying so, where firefox-esr is not installed.
final class FirefoxExtensionTests: ServiceTestCase {
    private var pages: LoopbackPageServer!
    private var browser: HeadlessFirefox?

    override func setUpWithError() throws {
        if let missing = HeadlessFirefox.missingRequirement { throw XCTSkip(missing) }
        try super.setUpWithError()
        pages = try LoopbackPageServer()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false, let browser { print("--- firefox\n\(browser.child.log.suffix(3000))") }
        browser?.quit()
        pages?.stop()
        super.tearDown()
    }

    private func startBrowser(arguments: [String] = [], urls: [String]) throws -> HeadlessFirefox {
        let started = try HeadlessFirefox(session: session, arguments: arguments, urls: urls)
        browser = started
        return started
    }

    private func current() throws -> [String: Any]? { try session.currentActivity() }

    /// Waits until the current activity is the browser's page at `url` titled `title`; the
    /// first page waits longer, for Firefox to start.
    @discardableResult
    private func waitForPage(_ url: String, titled title: String, timeout: TimeInterval = 20,
                             file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        var last: [String: Any]?
        let found = session.waitForPage(url, titled: title, timeout: timeout, last: &last)
        XCTAssertNotNil(found, "the current activity never became \(title) at \(url); last: \(String(describing: last))",
                        file: file, line: line)
        return found
    }

    func testTheOpenPageIsTheCurrentActivity() throws {
        pages.setTitle("Baton first page", for: "first")
        try startBrowser(urls: [pages.url("first")])
        let current = waitForPage(pages.url("first"), titled: "Baton first page", timeout: 45)
        XCTAssertEqual(current?["type"] as? String, "NSUserActivityTypeBrowsingWeb")
        XCTAssertEqual(current?["app-id"] as? String, "org.baton.BrowserHost")

        let status = try session.baton(["status"]).output
        XCTAssertTrue(status.contains("current activity: Baton first page"), status)
        XCTAssertTrue(status.contains("webpage: \(pages.url("first"))"), status)

        // Firefox started the host from the manifest in HOME's .mozilla folder, for the
        // extension's own id (the host's lines go to Firefox's Browser Console, not its log).
        let host = try XCTUnwrap(try session.runningBrowserHost(), "the browser host is not registered")
        XCTAssertEqual(host["verified"] as? Bool, true, "\(host)")
        let pid = try XCTUnwrap(host["pid"] as? Int)
        let arguments = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8).split(separator: "\0").map(String.init)
        XCTAssertEqual(arguments.dropFirst(), [
            session.root.appendingPathComponent("home/.mozilla/native-messaging-hosts/org.baton.browser_host.json").path,
            browser?.extensionID ?? "",
        ], "\(arguments)")
        let inspected = try session.baton(["inspect", "--json"])
        let payload = try XCTUnwrap(inspected.json as? [String: Any], inspected.output + inspected.errorOutput)
        XCTAssertEqual(payload["title"] as? String, "Baton first page", "\(payload)")
        XCTAssertEqual(payload["webpageURL"] as? String, pages.url("first"), "\(payload)")
        XCTAssertEqual((payload["userInfo"] as? [String: Any])?.count, 0, "\(payload)")
    }

    func testSwitchingClosingNavigatingAndRetitlingUpdateIt() throws {
        pages.setTitle("Baton first page", for: "first")
        pages.setTitle("Baton second page", for: "second")
        pages.setTitle("Before", for: "retitle", body: "<script>setTimeout(() => { document.title = 'After' }, 1500)</script>")
        pages.setTitle("Leaving", for: "leave", body: "<script>setTimeout(() => { location.href = '/second' }, 1500)</script>")
        let firefox = try startBrowser(urls: [pages.url("first")])
        waitForPage(pages.url("first"), titled: "Baton first page", timeout: 45)
        let first = try XCTUnwrap(try firefox.tabs().first)

        // A new tab comes to the front, then the first tab again.
        try firefox.openTab(pages.url("second"))
        waitForPage(pages.url("second"), titled: "Baton second page")
        try firefox.activate(first)
        waitForPage(pages.url("first"), titled: "Baton first page")

        // Closing the tab in front brings the other one forward.
        try firefox.close(first)
        waitForPage(pages.url("second"), titled: "Baton second page")

        // A title changed by the page is the same activity, retitled.
        try firefox.openTab(pages.url("retitle"))
        let before = waitForPage(pages.url("retitle"), titled: "Before")
        let after = waitForPage(pages.url("retitle"), titled: "After")
        XCTAssertNotNil(before?["id"])
        XCTAssertEqual(before?["id"] as? String, after?["id"] as? String, "retitling made another activity")

        // Navigating in the tab in front: by the page, then by the person.
        let leaving = try firefox.openTab(pages.url("leave"))
        waitForPage(pages.url("leave"), titled: "Leaving")
        waitForPage(pages.url("second"), titled: "Baton second page")
        try firefox.marionette().call("WebDriver:Navigate", ["url": pages.url("first")])
        waitForPage(pages.url("first"), titled: "Baton first page")
        XCTAssertEqual(try firefox.tab(showing: pages.url("first")), leaving)

        // A page that is not http or https leaves no current activity; back to one that is.
        let blank = try firefox.openTab("about:blank")
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil },
                      "about:blank left a current activity: \(String(describing: try? current()))")
        try firefox.close(blank)
        XCTAssertTrue(waitUntil(timeout: 10) { try current() != nil }, "closing about:blank brought no page back")
    }

    func testPrivateWindowsAreNeverPublished() throws {
        pages.setTitle("Baton public page", for: "public")
        pages.setTitle("Baton private page", for: "private")
        let firefox = try startBrowser(urls: [pages.url("public")])
        waitForPage(pages.url("public"), titled: "Baton public page", timeout: 45)
        let normalTab = try XCTUnwrap(try firefox.tabs().first)

        // A private window in front: nothing is current, and its page is never listed.
        try firefox.openPrivateWindow(pages.url("private"))
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil },
                      "the page behind a private window is still current: \(String(describing: try? current()))")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(try current(), "a private window's page was published")
        XCTAssertNotNil(try firefox.tab(showing: pages.url("private")), "the private page is not open")

        // Back to the normal window: its page again, never the private one.
        try firefox.activate(normalTab)
        waitForPage(pages.url("public"), titled: "Baton public page")
        let listed = try activities().compactMap { $0["webpage-url"] as? String }
        XCTAssertFalse(listed.contains(pages.url("private")), "\(listed)")
    }

    func testAPrivateWindowAloneStartsTheHostAndPublishesNothing() throws {
        pages.setTitle("Baton private page", for: "private")
        try startBrowser(arguments: ["--private-window"], urls: [pages.url("private")])
        XCTAssertTrue(waitUntil(timeout: 45) { try session.runningBrowserHost() != nil }, "the browser host never registered")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(try current(), "a private window's page was published")
        let listed = try activities().compactMap { $0["webpage-url"] as? String }
        XCTAssertFalse(listed.contains(pages.url("private")), "\(listed)")
    }

    func testQuittingFirefoxResigns() throws {
        pages.setTitle("Baton page", for: "page")
        let firefox = try startBrowser(urls: [pages.url("page")])
        waitForPage(pages.url("page"), titled: "Baton page", timeout: 45)
        let host = try XCTUnwrap(try session.runningBrowserHost())
        firefox.quit()
        XCTAssertFalse(firefox.child.isRunning, "Firefox did not quit")
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil && session.runningBrowserHost() == nil },
                      "the page outlived the browser: \(String(describing: try? current()))")
        let pid = try XCTUnwrap(host["pid"] as? Int)
        XCTAssertTrue(waitUntil(timeout: 5) { !BrowserHostProcess.isAlive(pid) }, "the host process \(pid) is still running")
    }
}
