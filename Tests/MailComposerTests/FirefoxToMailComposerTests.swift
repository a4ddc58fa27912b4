import ServiceFixtures
import XCTest

/// ``BrowserToMailComposerScenarios`` from a real headless Firefox ESR; skipped, saying so,
/// where firefox-esr is not installed.
final class FirefoxToMailComposerTests: BrowserToMailComposerScenarios {
    override class var browserKind: TestBrowserKind { .firefox }

    func testAMailPageInFirefoxContinuesInMailComposerAndAnotherSiteInTheBrowser() throws {
        try checkAMailPageContinuesInMailComposerAndAnotherSiteInTheBrowser()
    }
}
