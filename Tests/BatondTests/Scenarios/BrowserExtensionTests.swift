import Foundation
import ServiceFixtures
import XCTest

/// ``BrowserExtensionScenarios`` in a real headless Chromium, which must be installed.
final class BrowserExtensionTests: BrowserExtensionScenarios {
    override class var browserKind: TestBrowserKind { .chromium }

    func testTheOpenPageIsTheCurrentActivity() throws { try checkTheOpenPageIsTheCurrentActivity() }
    func testSwitchingClosingNavigatingAndRetitlingUpdateIt() throws { try checkSwitchingClosingNavigatingAndRetitlingUpdateIt() }
    func testAPrivateWindowAloneStartsTheHostAndPublishesNothing() throws {
        try checkAPrivateWindowAloneStartsTheHostAndPublishesNothing()
    }

    func testQuittingTheBrowserResigns() throws {
        let chromium = try checkQuittingTheBrowserResigns()
        XCTAssertTrue(chromium.child.log.contains("baton-browser-host: registered with the Baton service"),
                      "the host's lines are not in the browser's log")
    }

    /// A normal window opened beside an incognito one is published; the private page never is.
    func testANormalWindowBesideAPrivateOneIsPublished() throws {
        pages.setTitle("Baton private page", for: "private")
        pages.setTitle("Baton public page", for: "public")
        let chromium = try startBrowser(arguments: ["--incognito"], urls: [pages.url("private")])
        XCTAssertTrue(waitUntil(timeout: 20) { try session.runningBrowserHost() != nil }, "the browser host never registered")
        try chromium.openTab(pages.url("public"))
        waitForPage(pages.url("public"), titled: "Baton public page")
        let listed = try activities().compactMap { $0["webpage-url"] as? String }
        XCTAssertFalse(listed.contains(pages.url("private")), "\(listed)")
        XCTAssertNotNil(try chromium.tab(showing: pages.url("private")), "the private page closed")
    }
}
