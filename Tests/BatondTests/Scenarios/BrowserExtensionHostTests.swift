import Foundation
import ServiceFixtures
import XCTest

/// The browser extension's native messaging host without a browser: the test writes the
/// frames a browser would. Pages become the current activity with cleaned titles; hostile
/// frames are refused with a line on standard error, publish nothing and leave the host
/// running; the end of input resigns and exits; the host registers again when batond
/// restarts, and answers nobody but batond.
final class BrowserExtensionHostTests: ServiceTestCase {
    private var host: BrowserHostProcess!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try HeadlessChromium.installHost(in: session)
        host = try BrowserHostProcess(session: session)
        XCTAssertTrue(waitUntil { self.host.log.contains("registered with the Baton service") },
                      "the host did not register: \(host.log)")
    }

    override func tearDown() {
        host?.stop()
        super.tearDown()
    }

    private func page(_ url: String, _ title: String) -> [String: Any] {
        ["page": ["url": url, "title": title]]
    }

    /// Waits for the page to be current, failing the test otherwise.
    @discardableResult
    private func waitForPage(_ url: String, titled title: String,
                             file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        var last: [String: Any]?
        let found = session.waitForPage(url, titled: title, timeout: 10, last: &last)
        XCTAssertNotNil(found, "the current activity never became \(title.debugDescription) at \(url); "
            + "last: \(String(describing: last)); host: \(host.log)", file: file, line: line)
        return found
    }

    private func waitForNoPage(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(waitUntil(timeout: 10) { try session.currentActivity() == nil },
                      "a page is still current: \(String(describing: try? session.currentActivity()))",
                      file: file, line: line)
    }

    /// How many lines the host wrote about refused messages.
    private var refusals: Int { host.log.components(separatedBy: "refused a message").count - 1 }

    func testPagesArePublishedWithCleanedTitles() throws {
        try host.send(json: page("https://example.org/a", "A page"))
        let first = waitForPage("https://example.org/a", titled: "A page")
        XCTAssertEqual(first?["app-id"] as? String, "org.baton.BrowserHost")

        // Control characters, a right-to-left override and a line break in a title.
        try host.send(json: page("https://example.org/a", "Evil\u{202E}gnp.exe\u{07}\r\nnext"))
        let cleaned = waitForPage("https://example.org/a", titled: "Evilgnp.exe next")
        XCTAssertEqual(first?["id"] as? String, cleaned?["id"] as? String, "a new title of the same page is the same activity")

        // Another page; then none, with the browser still in front.
        try host.send(json: page("http://example.org/b", "  "))
        XCTAssertTrue(waitUntil { try session.currentActivity()?["webpage-url"] as? String == "http://example.org/b" })
        XCTAssertEqual(try session.currentActivity()?["title"] as? String ?? "", "", "a blank title is no title")
        try host.send(json: ["page": NSNull(), "active": true])
        waitForNoPage()
        XCTAssertEqual(refusals, 0, host.log)
    }

    func testHostileFramesAreRefusedAndTheHostKeepsRunning() throws {
        let hostile: [(String, [UInt8])] = [
            ("over the limit", []),
            ("not JSON", Array("not json".utf8)),
            ("not JSON", [0xFF, 0xFE, 0x7B]),
            ("not JSON", []),
            ("not a JSON object", Array("[1, 2]".utf8)),
            ("has no \"page\"", Array("{\"pages\": null}".utf8)),
            ("is not an object or null", Array("{\"page\": \"https://example.org/\"}".utf8)),
            ("is not a string", Array("{\"page\": {\"url\": 42}}".utf8)),
            ("is not a boolean", Array("{\"page\": null, \"active\": 1}".utf8)),
            ("scheme is javascript", Array("{\"page\": {\"url\": \"javascript:alert(1)\", \"title\": \"x\"}}".utf8)),
            ("scheme is file", Array("{\"page\": {\"url\": \"file:///etc/passwd\", \"title\": \"x\"}}".utf8)),
            ("over the limit of 4096", Array("{\"page\": {\"url\": \"https://example.org/\(String(repeating: "a", count: 5000))\"}}".utf8)),
        ]
        for (index, (expected, body)) in hostile.enumerated() {
            try host.send(json: page("https://example.org/\(index)", "Page \(index)"))
            waitForPage("https://example.org/\(index)", titled: "Page \(index)")
            if expected == "over the limit" {
                // A frame of 1 MiB and one byte, sent whole: skipped, and the next one read.
                try host.write(BrowserHostProcess.header(1024 * 1024 + 1) + [UInt8](repeating: 0x20, count: 1024 * 1024 + 1))
            } else {
                try host.send(body)
            }
            XCTAssertTrue(waitUntil(timeout: 5) { refusals == index + 1 }, "frame \(index) was not refused: \(host.log)")
            XCTAssertTrue(host.log.contains(expected), "no line says \(expected.debugDescription): \(host.log)")
            // When in doubt the host offers nothing, rather than the page before.
            waitForNoPage()
            XCTAssertTrue(host.isRunning, "the host exited after frame \(index): \(host.log)")
        }
        try host.send(json: page("https://example.org/after", "After"))
        waitForPage("https://example.org/after", titled: "After")
        XCTAssertFalse(host.log.contains("example.org"), "the host wrote a page address in its log: \(host.log)")
    }

    func testTheEndOfInputResignsAndExits() throws {
        try host.send(json: page("https://example.org/a", "A page"))
        waitForPage("https://example.org/a", titled: "A page")
        try host.closeInput()
        XCTAssertEqual(host.waitForExit(timeout: 5), 0, host.log)
        waitForNoPage()
        XCTAssertNil(try session.runningBrowserHost())
    }

    func testItRegistersAgainWhenBatondRestarts() throws {
        try host.send(json: page("https://example.org/a", "A page"))
        waitForPage("https://example.org/a", titled: "A page")
        batond.stop()
        batond = try session.startBatond(name: "batond-again")
        waitForPage("https://example.org/a", titled: "A page")
        XCTAssertTrue(host.log.contains("the Baton service stopped"), host.log)
    }

    func testItTellsNothingToAnotherOwnerOfBatondsName() throws {
        try host.send(json: page("https://example.org/secret", "Secret page"))
        waitForPage("https://example.org/secret", titled: "Secret page")
        batond.stop()
        let impostor = try session.start(ServiceSession.product("BatonTestApp"), ["impostor-daemon"], name: "impostor")
        XCTAssertTrue(waitUntil { impostor.log.contains("impostor owns org.baton.Daemon") }, impostor.log)
        XCTAssertTrue(waitUntil { self.host.log.contains("which is not the Baton service") }, host.log)
        try host.send(json: page("https://example.org/later", "Later page"))
        XCTAssertTrue(waitUntil { impostor.log.contains("refused: org.freedesktop.DBus.Error.AccessDenied") },
                      "the impostor's Save was not refused: \(impostor.log)")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertFalse(impostor.log.contains("answered"), "the host saved a page for it: \(impostor.log)")
        XCTAssertFalse(impostor.log.contains("Register from") || impostor.log.contains("PublishCurrent from"),
                       "the host registered with it or told it a page: \(impostor.log)")

        impostor.stop()
        batond = try session.startBatond(name: "batond-real")
        waitForPage("https://example.org/later", titled: "Later page")
    }

    func testOnlyBatondMayCallIt() throws {
        try host.send(json: page("https://example.org/a", "A page"))
        waitForPage("https://example.org/a", titled: "A page")
        let busName = try XCTUnwrap(try session.runningBrowserHost()?["bus-name"] as? String)
        let call = try session.run(URL(fileURLWithPath: "/usr/bin/gdbus"), [
            "call", "--address", session.busAddress, "--dest", busName, "--object-path", "/org/baton/Application",
            "--method", "org.baton.Application1.Save", "anything",
        ], timeout: 10)
        XCTAssertNotEqual(call.status, 0)
        XCTAssertTrue(call.errorOutput.contains("AccessDenied"), call.errorOutput)
    }
}
