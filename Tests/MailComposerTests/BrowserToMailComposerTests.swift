import ServiceFixtures
import XCTest

/// ``BrowserToMailComposerScenarios`` from a real headless Chromium, which must be installed.
final class BrowserToMailComposerTests: BrowserToMailComposerScenarios {
    override class var browserKind: TestBrowserKind { .chromium }

    func testAMailPageInChromiumContinuesInMailComposerAndAnotherSiteInTheBrowser() throws {
        try checkAMailPageContinuesInMailComposerAndAnotherSiteInTheBrowser()
    }
}
