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
        try site.serve(batonPath, body: TestWebSite.associationFile(["org.example.org.example.Mail"]))
        try site.start(port: port)
        let reason = failure(await try fetcher().fetch(host: "127.0.0.1"))
        XCTAssertTrue(reason.contains("cannot reach https://127.0.0.1"), reason)
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

        try site.serve(batonPath, status: "500 Internal Server Error", headers: [:], body: "")
        reason = try await self.reason()
        XCTAssertEqual(reason, "https://localhost/\(batonPath) answered 500 Internal Server Error")

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
