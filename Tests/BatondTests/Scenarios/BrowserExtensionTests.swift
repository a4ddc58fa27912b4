import Foundation
import ServiceFixtures
import XCTest

/// Baton's browser extension in a real headless Chromium, with the native messaging host and
/// batond on the test's bus: the page in front becomes the browser's current activity
/// (`NSUserActivityTypeBrowsingWeb`, its title and URL), follows tab switches, navigation
/// and retitling, goes when no http or https page is in front or the browser quits, and a
/// private window never shows.
final class BrowserExtensionTests: ServiceTestCase {
    private var pages: LoopbackPageServer!
    private var browser: HeadlessChromium?

    override func setUpWithError() throws {
        try super.setUpWithError()
        pages = try LoopbackPageServer()
    }

    override func tearDown() {
        browser?.quit()
        pages?.stop()
        super.tearDown()
    }

    /// Starts Chromium, failing the test (not skipping it) when it is not installed.
    @discardableResult
    private func startBrowser(arguments: [String] = [], urls: [String]) throws -> HeadlessChromium {
        guard HeadlessChromium.executable != nil else {
            XCTFail(HeadlessChromium.missingMessage)
            throw FixtureError(HeadlessChromium.missingMessage)
        }
        let started = try HeadlessChromium(session: session, arguments: arguments, urls: urls)
        browser = started
        return started
    }

    private func current() throws -> [String: Any]? { try session.currentActivity() }

    private func runningHost() throws -> [String: Any]? { try session.runningBrowserHost() }

    /// Waits until the current activity is the browser's page at `url` titled `title`.
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
        let current = waitForPage(pages.url("first"), titled: "Baton first page")
        XCTAssertEqual(current?["type"] as? String, "NSUserActivityTypeBrowsingWeb")
        XCTAssertEqual(current?["app-id"] as? String, "org.baton.BrowserHost")

        // What a person reads: `baton status`.
        let status = try session.baton(["status"]).output
        XCTAssertTrue(status.contains("current activity: Baton first page"), status)
        XCTAssertTrue(status.contains("type: NSUserActivityTypeBrowsingWeb"), status)
        XCTAssertTrue(status.contains("webpage: \(pages.url("first"))"), status)

        // The host is verified by its installed desktop entry, for the web type.
        let host = try XCTUnwrap(try runningHost(), "the browser host is not registered")
        XCTAssertEqual(host["verified"] as? Bool, true, "\(host)")
        XCTAssertEqual(host["verified-activity-types"] as? [String], ["NSUserActivityTypeBrowsingWeb"])

        // The activity as the host saves it when asked (`Save`): its type, title and URL, no userInfo.
        let inspected = try session.baton(["inspect", "--json"])
        XCTAssertEqual(inspected.status, 0, inspected.errorOutput)
        let payload = try XCTUnwrap(inspected.json as? [String: Any], inspected.output)
        XCTAssertEqual(payload["type"] as? String, "NSUserActivityTypeBrowsingWeb", "\(payload)")
        XCTAssertEqual(payload["title"] as? String, "Baton first page", "\(payload)")
        XCTAssertEqual(payload["webpageURL"] as? String, pages.url("first"), "\(payload)")
        XCTAssertEqual((payload["userInfo"] as? [String: Any])?.count, 0, "\(payload)")
    }

    func testSwitchingTabsNavigatingAndRetitlingUpdateIt() throws {
        pages.setTitle("Baton first page", for: "first")
        pages.setTitle("Baton second page", for: "second")
        pages.setTitle("Before", for: "retitle", body: "<script>setTimeout(() => { document.title = 'After' }, 1500)</script>")
        pages.setTitle("Leaving", for: "leave", body: "<script>setTimeout(() => { location.href = '/second' }, 1500)</script>")
        let chromium = try startBrowser(urls: [pages.url("first")])
        waitForPage(pages.url("first"), titled: "Baton first page")

        // A new tab comes to the front, then the first tab again.
        try chromium.openTab(pages.url("second"))
        waitForPage(pages.url("second"), titled: "Baton second page")
        let first = try XCTUnwrap(try chromium.target(showing: pages.url("first")))
        try chromium.activate(first)
        waitForPage(pages.url("first"), titled: "Baton first page")

        // Closing the tab in front brings the other one forward.
        try chromium.close(first)
        waitForPage(pages.url("second"), titled: "Baton second page")

        // A title changed by the page is the same activity, retitled.
        try chromium.openTab(pages.url("retitle"))
        let before = waitForPage(pages.url("retitle"), titled: "Before")
        let after = waitForPage(pages.url("retitle"), titled: "After")
        XCTAssertNotNil(before?["id"])
        XCTAssertEqual(before?["id"] as? String, after?["id"] as? String, "retitling made another activity")

        // Navigating in the tab in front.
        try chromium.openTab(pages.url("leave"))
        waitForPage(pages.url("leave"), titled: "Leaving")
        waitForPage(pages.url("second"), titled: "Baton second page")

        // A page that is not http or https leaves no current activity; back to one that is.
        let blank = try chromium.openTab("about:blank")
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil },
                      "about:blank left a current activity: \(String(describing: try? current()))")
        try chromium.close(blank)
        XCTAssertTrue(waitUntil(timeout: 10) { try current() != nil }, "closing about:blank brought no page back")
    }

    func testPrivateWindowsAreNeverPublished() throws {
        pages.setTitle("Baton private page", for: "private")
        pages.setTitle("Baton public page", for: "public")
        let chromium = try startBrowser(arguments: ["--incognito"], urls: [pages.url("private")])
        // The extension runs (in the normal profile) and its host registered, with nothing to offer.
        XCTAssertTrue(waitUntil(timeout: 20) { try runningHost() != nil }, "the browser host never registered")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(try current(), "a private window's page was published")
        XCTAssertNotNil(try chromium.target(showing: pages.url("private")), "the private page is not open")

        // A normal window beside it is published; the private page never is.
        try chromium.openTab(pages.url("public"))
        waitForPage(pages.url("public"), titled: "Baton public page")
        let listed = try activities().compactMap { $0["webpage-url"] as? String }
        XCTAssertFalse(listed.contains(pages.url("private")), "\(listed)")
        XCTAssertNotNil(try chromium.target(showing: pages.url("private")), "the private page closed")
    }

    func testQuittingTheBrowserResigns() throws {
        pages.setTitle("Baton page", for: "page")
        let chromium = try startBrowser(urls: [pages.url("page")])
        waitForPage(pages.url("page"), titled: "Baton page")
        let host = try XCTUnwrap(try runningHost())
        chromium.quit()
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil && runningHost() == nil },
                      "the page outlived the browser: \(String(describing: try? current()))")
        let pid = try XCTUnwrap(host["pid"] as? Int)
        XCTAssertTrue(waitUntil(timeout: 5) { !BrowserHostProcess.isAlive(pid) }, "the host process \(pid) is still running")
        XCTAssertTrue(chromium.child.log.contains("baton-browser-host: registered with the Baton service"),
                      "the host's lines are not in the browser's log")
    }
}
