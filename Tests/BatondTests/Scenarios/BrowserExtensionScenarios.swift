import Foundation
import ServiceFixtures
import XCTest

/// Baton's browser extension in a real headless browser, with the native messaging host and
/// batond on the test's bus: the page in front becomes the browser's current activity
/// (`NSUserActivityTypeBrowsingWeb`, its title and URL), follows tab switches, closing,
/// navigation and retitling, goes when no http or https page is in front or the browser
/// quits, and a private window never shows. The same scenarios run in Chromium
/// (``BrowserExtensionTests``) and Firefox ESR (``FirefoxExtensionTests``).
class BrowserExtensionScenarios: ServiceTestCase {
    class var browserKind: TestBrowserKind { .chromium }

    var pages: LoopbackPageServer!
    private(set) var browser: (any TestBrowser)?

    override func setUpWithError() throws {
        if let missing = Self.browserKind.missingRequirement {
            guard Self.browserKind.mustBeInstalled else { throw XCTSkip(missing) }
            XCTFail(missing)
            throw FixtureError(missing)
        }
        try super.setUpWithError()
        pages = try LoopbackPageServer()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false, let browser {
            print("--- \(Self.browserKind.rawValue)\n\(browser.child.log.suffix(3000))")
        }
        browser?.quit()
        pages?.stop()
        super.tearDown()
    }

    @discardableResult
    func startBrowser(arguments: [String] = [], urls: [String]) throws -> any TestBrowser {
        let started = try Self.browserKind.start(session: session, arguments: arguments, urls: urls)
        browser = started
        return started
    }

    /// The Firefox this test started, if it did.
    var startedFirefox: HeadlessFirefox? { browser as? HeadlessFirefox }

    func current() throws -> [String: Any]? { try session.currentActivity() }

    /// Waits until the current activity is the browser's page at `url` titled `title`.
    @discardableResult
    func waitForPage(_ url: String, titled title: String, timeout: TimeInterval = 20,
                     file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        var last: [String: Any]?
        let found = session.waitForPage(url, titled: title, timeout: timeout, last: &last)
        XCTAssertNotNil(found, "the current activity never became \(title) at \(url); last: \(String(describing: last))",
                        file: file, line: line)
        return found
    }

    /// Waits for the first page, which waits for the browser to start.
    @discardableResult
    func waitForFirstPage(_ url: String, titled title: String, file: StaticString = #filePath, line: UInt = #line)
        -> [String: Any]? {
        waitForPage(url, titled: title, timeout: Self.browserKind.firstPageTimeout, file: file, line: line)
    }

    /// What else a browser shows of how it started the host; nothing by default.
    func checkHowTheHostStarted(_ host: [String: Any]) throws {}

    func checkTheOpenPageIsTheCurrentActivity() throws {
        pages.setTitle("Baton first page", for: "first")
        try startBrowser(urls: [pages.url("first")])
        let current = waitForFirstPage(pages.url("first"), titled: "Baton first page")
        XCTAssertEqual(current?["type"] as? String, "NSUserActivityTypeBrowsingWeb")
        XCTAssertEqual(current?["app-id"] as? String, "org.baton.BrowserHost")

        // What a person reads: `baton status`.
        let status = try session.baton(["status"]).output
        XCTAssertTrue(status.contains("current activity: Baton first page"), status)
        XCTAssertTrue(status.contains("type: NSUserActivityTypeBrowsingWeb"), status)
        XCTAssertTrue(status.contains("webpage: \(pages.url("first"))"), status)

        // The host is verified by its installed desktop entry, for the web type.
        let host = try XCTUnwrap(try session.runningBrowserHost(), "the browser host is not registered")
        XCTAssertEqual(host["verified"] as? Bool, true, "\(host)")
        XCTAssertEqual(host["verified-activity-types"] as? [String], ["NSUserActivityTypeBrowsingWeb"])
        try checkHowTheHostStarted(host)

        // The activity as the host saves it when asked (`Save`): its type, title and URL, no userInfo.
        let inspected = try session.baton(["inspect", "--json"])
        XCTAssertEqual(inspected.status, 0, inspected.errorOutput)
        let payload = try XCTUnwrap(inspected.json as? [String: Any], inspected.output)
        XCTAssertEqual(payload["type"] as? String, "NSUserActivityTypeBrowsingWeb", "\(payload)")
        XCTAssertEqual(payload["title"] as? String, "Baton first page", "\(payload)")
        XCTAssertEqual(payload["webpageURL"] as? String, pages.url("first"), "\(payload)")
        XCTAssertEqual((payload["userInfo"] as? [String: Any])?.count, 0, "\(payload)")
    }

    func checkSwitchingClosingNavigatingAndRetitlingUpdateIt() throws {
        pages.setTitle("Baton first page", for: "first")
        pages.setTitle("Baton second page", for: "second")
        pages.setTitle("Before", for: "retitle", body: "<script>setTimeout(() => { document.title = 'After' }, 1500)</script>")
        pages.setTitle("Leaving", for: "leave", body: "<script>setTimeout(() => { location.href = '/second' }, 1500)</script>")
        let browser = try startBrowser(urls: [pages.url("first")])
        waitForFirstPage(pages.url("first"), titled: "Baton first page")
        let first = try XCTUnwrap(try browser.tab(showing: pages.url("first")))

        // A new tab comes to the front, then the first tab again.
        try browser.openTab(pages.url("second"))
        waitForPage(pages.url("second"), titled: "Baton second page")
        try browser.activate(first)
        waitForPage(pages.url("first"), titled: "Baton first page")

        // Closing the tab in front brings the other one forward.
        try browser.close(first)
        waitForPage(pages.url("second"), titled: "Baton second page")

        // A title changed by the page is the same activity, retitled.
        try browser.openTab(pages.url("retitle"))
        let before = waitForPage(pages.url("retitle"), titled: "Before")
        let after = waitForPage(pages.url("retitle"), titled: "After")
        XCTAssertNotNil(before?["id"])
        XCTAssertEqual(before?["id"] as? String, after?["id"] as? String, "retitling made another activity")

        // The page in front navigates by itself.
        try browser.openTab(pages.url("leave"))
        waitForPage(pages.url("leave"), titled: "Leaving")
        waitForPage(pages.url("second"), titled: "Baton second page")

        // A page that is not http or https leaves no current activity; back to one that is.
        let blank = try browser.openTab("about:blank")
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil },
                      "about:blank left a current activity: \(String(describing: try? current()))")
        try browser.close(blank)
        XCTAssertTrue(waitUntil(timeout: 10) { try current() != nil }, "closing about:blank brought no page back")
    }

    /// The browser started with a private window alone: the extension runs and its host
    /// registers, with nothing to offer; the private page is open, never published.
    func checkAPrivateWindowAloneStartsTheHostAndPublishesNothing() throws {
        pages.setTitle("Baton private page", for: "private")
        let browser = try startBrowser(arguments: Self.browserKind.privateWindowArguments, urls: [pages.url("private")])
        XCTAssertTrue(waitUntil(timeout: Self.browserKind.firstPageTimeout) { try session.runningBrowserHost() != nil },
                      "the browser host never registered")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertNil(try current(), "a private window's page was published")
        XCTAssertNotNil(try browser.tab(showing: pages.url("private")), "the private page is not open")
        let listed = try activities().compactMap { $0["webpage-url"] as? String }
        XCTAssertFalse(listed.contains(pages.url("private")), "\(listed)")
    }

    /// Returns the browser, quit.
    @discardableResult
    func checkQuittingTheBrowserResigns() throws -> any TestBrowser {
        pages.setTitle("Baton page", for: "page")
        let browser = try startBrowser(urls: [pages.url("page")])
        waitForFirstPage(pages.url("page"), titled: "Baton page")
        let host = try XCTUnwrap(try session.runningBrowserHost())
        browser.quit()
        XCTAssertFalse(browser.child.isRunning, "the browser did not quit")
        XCTAssertTrue(waitUntil(timeout: 10) { try current() == nil && session.runningBrowserHost() == nil },
                      "the page outlived the browser: \(String(describing: try? current()))")
        let pid = try XCTUnwrap(host["pid"] as? Int)
        XCTAssertTrue(waitUntil(timeout: 5) { !BrowserHostProcess.isAlive(pid) }, "the host process \(pid) is still running")
        return browser
    }
}
