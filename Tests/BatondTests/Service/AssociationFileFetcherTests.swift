@testable import batond
import ServiceFixtures
import XCTest

/// Fetching a site's association file over real TLS (OpenSSL's server on loopback with a
/// test authority): Baton's file first, then Apple's; the certificate verified against the
/// system's store and `--trust-ca`, host name included; redirects, errors and oversize files
/// refused saying why.
final class AssociationFileFetcherTests: XCTestCase {
    private var site: TestWebSite!
    private var port: UInt16 = 0
    private let batonPath = ".well-known/baton-app-site-association"
    private let applePath = ".well-known/apple-app-site-association"

    override func setUpWithError() throws {
        if let missing = TestWebSite.missingRequirement { throw XCTSkip(missing) }
        site = try TestWebSite(names: ["localhost"])
        port = UInt16.random(in: 20_000...40_000)
    }

    override func tearDown() {
        site?.remove()
    }

    private func fetcher(trusting: Bool = true) throws -> AssociationFileFetcher {
        AssociationFileFetcher(extraAuthorities: trusting ? try TrustedAuthorities(path: site.authorityFile.path) : nil, port: port)
    }

    private func failure(_ outcome: AssociationFileFetcher.Outcome, file: StaticString = #filePath, line: UInt = #line) -> String {
        guard case .failure(let reason) = outcome else {
            XCTFail("expected a failure, got \(outcome)", file: file, line: line)
            return ""
        }
        return reason
    }

    /// Why fetching the file of `localhost` fails.
    private func reason() async throws -> String {
        failure(await try fetcher().fetch(host: "localhost"))
    }

    func testBatonsFileIsReadWithItsMaximumAge() async throws {
        try site.serve(batonPath, headers: ["Content-Type": "application/json", "Cache-Control": "public, max-age=600"],
                       body: TestWebSite.associationFile(["org.example.org.example.Mail", "TEAM.other"]))
        try site.start(port: port)
        let outcome = await try fetcher().fetch(host: "localhost")
        guard case .file(let file, let source, let age) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(file.apps, ["org.example.org.example.Mail", "TEAM.other"])
        XCTAssertEqual(source, "https://localhost/\(batonPath)")
        XCTAssertEqual(age, 600)
        XCTAssertTrue(file.allows(appID: "org.example.Mail", teamID: "org.example"))
    }

    func testApplesFileIsReadWhereTheSiteHasNoBatonFile() async throws {
        try site.serve(batonPath, status: "404 Not Found", headers: [:], body: "")
        try site.serve(applePath, body: TestWebSite.associationFile(["ABCDE12345.com.example.app"]))
        try site.start(port: port)
        let outcome = await try fetcher().fetch(host: "localhost")
        guard case .file(let file, let source, let age) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(file.apps, ["ABCDE12345.com.example.app"])
        XCTAssertEqual(source, "https://localhost/\(applePath)")
        XCTAssertNil(age)
    }

    func testACertificateOnlyTheTestAuthorityVouchesForIsRefusedWithoutTrustCA() async throws {
        try site.serve(batonPath, body: TestWebSite.associationFile(["org.example.org.example.Mail"]))
        try site.start(port: port)
        let reason = failure(await try fetcher(trusting: false).fetch(host: "localhost"))
        XCTAssertTrue(reason.hasPrefix("cannot reach https://localhost:"), reason)
        XCTAssertTrue(reason.lowercased().contains("certificate"), reason)
    }

    func testTheCertificateMustNameTheHostEvenFromATrustedAuthority() async throws {
        site.remove()
        site = try TestWebSite(names: ["other.example"])
        try site.serve(batonPath, body: TestWebSite.associationFile(["org.example.org.example.Mail"]))
        try site.start(port: port)
        for host in ["localhost", "127.0.0.1"] {
            let reason = failure(await try fetcher().fetch(host: host))
            XCTAssertTrue(reason.hasPrefix("cannot reach https://\(host):"), reason)
            XCTAssertTrue(reason.lowercased().contains("certificate"), reason)
        }
    }

    func testApplesFileIsReadWhereBatonsPathAnswersSomethingElse() async throws {
        try site.serve(batonPath, headers: ["Content-Type": "text/html"], body: "<html>a catch-all page</html>")
        try site.serve(applePath, body: TestWebSite.associationFile(["ABCDE12345.com.example.app"]))
        try site.start(port: port)
        let outcome = await try fetcher().fetch(host: "localhost")
        guard case .file(let file, let source, _) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(file.apps, ["ABCDE12345.com.example.app"])
        XCTAssertEqual(source, "https://localhost/\(applePath)")

        try site.serve(batonPath, status: "410 Gone", headers: [:], body: "")
        guard case .file = await try fetcher().fetch(host: "localhost") else { return XCTFail("410 is no file too") }
    }

    func testASiteThatNeverAnswersIsGivenUpOnTime() async throws {
        // A listener that never accepts: the connection is made, the TLS handshake never ends.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(listener, 4), 0)
        var slow = try fetcher()
        slow.timeout = 1
        let started = Date()
        // The deadline is a timeout of the GLib main loop, which batond runs and this test pumps.
        let fetcher = slow
        let reason = failure(try await Outcome { await fetcher.fetch(host: "localhost") }.get(timeout: 10))
        XCTAssertTrue(reason.hasPrefix("cannot reach https://localhost"), reason)
        XCTAssertTrue(reason.contains("no answer within 1 s"), reason)
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }

    func testRedirectsErrorsAndBadFilesAreRefusedSayingWhy() async throws {
        try site.start(port: port)
        try site.serve(batonPath, status: "301 Moved Permanently", headers: ["Location": "https://evil.example/"], body: "")
        var reason = try await reason()
        XCTAssertTrue(reason.contains("redirects (301)"), reason)

        try site.serve(batonPath, status: "404 Not Found", headers: [:], body: "")
        try site.serve(applePath, status: "404 Not Found", headers: [:], body: "")
        reason = try await self.reason()
        XCTAssertEqual(reason, "localhost serves neither /\(batonPath) nor /\(applePath)")

        try site.serve(batonPath, status: "500 Internal \u{1B}[31mServer Error", headers: [:], body: "")
        reason = try await self.reason()
        XCTAssertEqual(reason, "https://localhost/\(batonPath) answered 500 Internal \u{FFFD}[31mServer Error",
                       "the site's words, its escape replaced, never passed on")

        try site.serve(batonPath, body: "<html>not json</html>")
        reason = try await self.reason()
        XCTAssertEqual(reason, "https://localhost/\(batonPath): the file is not JSON")

        try site.serve(batonPath, headers: ["Content-Length": "500"], body: TestWebSite.associationFile(["a.b"]))
        reason = try await self.reason()
        XCTAssertTrue(reason.contains("cut short"), reason)

        try site.serve(batonPath, body: "[\"" + String(repeating: "x", count: 200_000) + "\"]")
        reason = try await self.reason()
        XCTAssertTrue(reason.contains("over 131072 bytes"), reason)
    }

    func testAnUnreachableSiteFailsAtOnce() async throws {
        let started = Date()
        let reason = failure(await try fetcher().fetch(host: "localhost"))
        XCTAssertTrue(reason.hasPrefix("cannot reach https://localhost"), reason)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testTrustCAMustHoldCertificates() throws {
        let file = site.folder.appendingPathComponent("not-a-ca.pem")
        try "hello".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TrustedAuthorities(path: file.path))
        XCTAssertThrowsError(try TrustedAuthorities(path: site.folder.appendingPathComponent("missing.pem").path))
        XCTAssertNoThrow(try TrustedAuthorities(path: site.authorityFile.path))
    }
}
