@testable import batond
import ServiceFixtures
import XCTest

/// The domains an app claims (`X-Baton-Domains`) and the association files sites serve:
/// only host names are claims, a wildcard covers subdomains and not the domain, and a file
/// lists `TEAM.APPID` entries under `activitycontinuation.apps` or is refused saying why.
final class DomainClaimTests: XCTestCase {
    func testClaimsAreHostNamesAndWildcardsCoverSubdomainsOnly() {
        let (claims, invalid) = DomainClaim.parse("Mail.Example.org; *.example.net;mail.example.org;;")
        XCTAssertEqual(claims.map(\.description), ["mail.example.org", "*.example.net"], "lowercased, once each")
        XCTAssertEqual(invalid, [])
        XCTAssertTrue(claims[0].matches(host: "MAIL.example.org"))
        XCTAssertFalse(claims[0].matches(host: "evil-mail.example.org"))
        XCTAssertTrue(claims[1].matches(host: "a.b.example.net"))
        XCTAssertFalse(claims[1].matches(host: "example.net"), "a wildcard is for subdomains, as Apple's")
        XCTAssertFalse(claims[1].matches(host: "badexample.net"))
        XCTAssertEqual(claims[1].verifyingHost, "example.net")
    }

    func testWhatIsNotAHostNameIsNoClaim() {
        let written = ["https://example.org", "example.org/path", "localhost", "*.org", "192.168.1.4", "-bad.example.org",
                       "exa mple.org", "*.*.example.org", "ex_ample.org", String(repeating: "a", count: 64) + ".org", "bücher.example"]
        let (claims, invalid) = DomainClaim.parse(written.joined(separator: ";"))
        XCTAssertEqual(claims, [], "\(claims)")
        XCTAssertEqual(invalid, written)
    }

    func testAnEntrysClaimsAreReadBesideWhatIsNotAClaim() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID().uuidString).desktop")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
            [Desktop Entry]
            Type=Application
            Name=Mail
            Exec=/bin/true
            X-Baton-TeamID=org.example
            X-Baton-ActivityTypes=org.example.mail.compose;
            X-Baton-Domains=mail.example.org;https://evil.example/;

            """.write(to: file, atomically: true, encoding: .utf8)
        let app = try XCTUnwrap(InstalledApps.read(file))
        XCTAssertEqual(app.domains.map(\.description), ["mail.example.org"])
        XCTAssertEqual(app.invalidDomains, ["https://evil.example/"])
    }

    func testMailComposerClaimsItsDomain() throws {
        let entry = try String(contentsOf: SourceTree.path("Examples/MailComposer/Resources/org.example.MailComposer.desktop"),
                               encoding: .utf8)
        let line = try XCTUnwrap(entry.split(separator: "\n").first { $0.hasPrefix("\(DomainClaim.key)=") })
        let (claims, invalid) = DomainClaim.parse(String(line.dropFirst(DomainClaim.key.count + 1)))
        XCTAssertEqual(claims.map(\.description), ["mail.example.org"])
        XCTAssertEqual(invalid, [])
    }

    func testAnAssociationFileListsTheAppsThatContinueItsPages() throws {
        let file = try AssociationFile(bytes: Array("""
            {"applinks": {"apps": [], "details": []},
             "activitycontinuation": {"apps": ["org.example.org.example.MailComposer", "ABCDE12345.com.example.Mail"]}}
            """.utf8))
        XCTAssertTrue(file.allows(appID: "org.example.MailComposer", teamID: "org.example"))
        XCTAssertTrue(file.allows(appID: "com.example.Mail", teamID: "ABCDE12345"))
        XCTAssertFalse(file.allows(appID: "org.example.MailComposer", teamID: "com.evil"))
        XCTAssertFalse(file.allows(appID: "org.example.Other", teamID: "org.example"))
    }

    func testABadAssociationFileIsRefusedSayingWhy() {
        let cases: [(String, String)] = [
            ("not json", "not JSON"),
            ("[1, 2]", "not a JSON object"),
            ("{\"applinks\": {}}", "no \"activitycontinuation\""),
            ("{\"activitycontinuation\": {\"apps\": \"org.example.App\"}}", "no \"apps\" list"),
            ("{\"activitycontinuation\": {\"apps\": [\"org.example.App\", 7]}}", "[1] is not TEAM.APPID"),
            ("{\"activitycontinuation\": {\"apps\": [\"noteam\"]}}", "[0] is not TEAM.APPID"),
            ("{\"activitycontinuation\": {\"apps\": [\"org..App\"]}}", "[0] is not TEAM.APPID"),
            ("{\"activitycontinuation\": {\"apps\": [\"org.example/../App\"]}}", "[0] is not TEAM.APPID"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try AssociationFile(bytes: Array(text.utf8)), text) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(text): \(error)")
            }
        }
        let huge = Array("{\"activitycontinuation\": {\"apps\": [\"\(String(repeating: "a", count: AssociationFile.maximumSize))\"]}}".utf8)
        XCTAssertThrowsError(try AssociationFile(bytes: huge)) { XCTAssertTrue("\($0)".contains("over the limit"), "\($0)") }
    }
}
