@testable import batond
import Baton
import Foundation
import Logging
import ServiceFixtures
import XCTest

/// What batond makes of the association files it fetched (the fetch itself is real in
/// `AssociationFileFetcherTests` and `MailComposerWebPageTests`): a claim is verified only
/// while an unexpired answer lists the app; answers are kept for the site's max-age within
/// bounds, survive a restart, and stand through failed fetches until they expire; failures are
/// retried less and less often.
@MainActor
final class DomainVerifierTests: XCTestCase {
    private var folder: URL!
    private let logger = Logger(label: "test")

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func app(_ id: String, team: String = "org.example", domains: String) -> InstalledApp {
        let parsed = DomainClaim.parse(domains)
        return InstalledApp(appID: id, teamID: team, activityTypes: ["org.example.x"], desktopFile: "/\(id).desktop",
                            isDBusActivatable: false, domains: parsed.claims, invalidDomains: parsed.invalid)
    }

    private func verifier(_ apps: [InstalledApp], minimumAge: Double = 3600) -> DomainVerifier {
        let verifier = DomainVerifier(stateDirectory: folder, minimumAge: minimumAge, logger: logger) { _ in .failure("not used") }
        verifier.installedApps = { apps }
        return verifier
    }

    private func file(_ apps: [String], age: Int? = nil) throws -> AssociationFileFetcher.Outcome {
        .file(try AssociationFile(bytes: Array(#"{"activitycontinuation": {"apps": [\#(apps.map { "\"\($0)\"" }.joined(separator: ","))]}}"#.utf8)),
              source: "https://example.org/.well-known/baton-app-site-association", maximumAge: age)
    }

    func testAClaimIsVerifiedOnlyWhileAnUnexpiredAnswerListsTheApp() async throws {
        let mail = app("org.example.Mail", domains: "mail.example.org;bad/entry")
        let verifier = verifier([mail])
        let start = Date()
        XCTAssertEqual(verifier.claimStates(now: start).map(\.state), [.pending, .invalid])
        XCTAssertTrue(verifier.isDue("mail.example.org", now: start))

        verifier.record(try file(["org.example.org.example.Mail"], age: 7200), for: "mail.example.org", now: start)
        XCTAssertEqual(verifier.claimStates(now: start)[0].state, .verified)
        XCTAssertNil(verifier.claimStates(now: start)[0].reason)
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://MAIL.example.org/compose")!, now: start).map(\.appID),
                       ["org.example.Mail"])
        XCTAssertFalse(verifier.isDue("mail.example.org", now: start.addingTimeInterval(7199)))

        // A failed fetch leaves the answer standing, saying so, until it expires.
        verifier.record(.failure("cannot reach https://mail.example.org: refused"), for: "mail.example.org",
                        now: start.addingTimeInterval(7200))
        let standing = verifier.claimStates(now: start.addingTimeInterval(7199))[0]
        XCTAssertEqual(standing.state, .verified)
        XCTAssertTrue(standing.reason?.contains("the latest fetch failed") ?? false, "\(standing)")
        let expired = verifier.claimStates(now: start.addingTimeInterval(7201))[0]
        XCTAssertEqual(expired.state, .failed)
        XCTAssertTrue(expired.reason?.hasPrefix("cannot reach https://mail.example.org: refused (the answer of ") ?? false, "\(expired)")
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://mail.example.org/")!, now: start.addingTimeInterval(7201)).map(\.appID), [])

        // An answer that does not list the app.
        verifier.record(try file(["org.example.org.example.Other"]), for: "mail.example.org", now: start)
        let refused = verifier.claimStates(now: start)[0]
        XCTAssertEqual(refused.state, .failed)
        XCTAssertEqual(refused.reason, "https://example.org/.well-known/baton-app-site-association does not list org.example.org.example.Mail")
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://mail.example.org/")!, now: start).map(\.appID), [])
    }

    func testAnswersAreKeptForTheSitesMaximumAgeWithinBounds() async throws {
        let verifier = verifier([app("a.App", domains: "a.example.org;b.example.org;c.example.org")])
        let now = Date()
        verifier.record(try file([], age: 5), for: "a.example.org", now: now)
        verifier.record(try file([]), for: "b.example.org", now: now)
        verifier.record(try file([], age: 100 * 24 * 3600), for: "c.example.org", now: now)
        XCTAssertEqual(verifier.sites["a.example.org"]?.expires, now.addingTimeInterval(3600), "at least the minimum")
        XCTAssertEqual(verifier.sites["b.example.org"]?.expires, now.addingTimeInterval(24 * 3600), "a day when the site does not say")
        XCTAssertEqual(verifier.sites["c.example.org"]?.expires, now.addingTimeInterval(7 * 24 * 3600), "at most a week")
    }

    func testFailuresAreRetriedLessAndLessOften() async {
        let verifier = verifier([app("a.App", domains: "a.example.org")])
        var now = Date()
        var delays: [Double] = []
        for _ in 0..<10 {
            verifier.record(.failure("down"), for: "a.example.org", now: now)
            var waited = 0.0
            while !verifier.isDue("a.example.org", now: now.addingTimeInterval(waited)) { waited += 60 }
            delays.append(waited)
            now = now.addingTimeInterval(waited)
        }
        XCTAssertEqual(delays, [300, 600, 1200, 2400, 4800, 9600, 19200, 21600, 21600, 21600])
    }

    func testAnswersSurviveARestartAndOnlyClaimedSitesAreKept() async throws {
        let apps = [app("a.App", domains: "a.example.org")]
        let now = Date()
        let first = verifier(apps)
        first.record(try file(["org.example.a.App"]), for: "a.example.org", now: now)
        first.record(try file(["org.example.a.App"]), for: "unclaimed.example.org", now: now)
        let written = folder.appendingPathComponent(DomainVerifier.fileName)
        let mode = try FileManager.default.attributesOfItem(atPath: written.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)

        let second = verifier(apps)
        XCTAssertEqual(Array(second.sites.keys), ["a.example.org"])
        XCTAssertEqual(second.claimStates(now: now).first?.state, .verified)

        try "not json".write(to: written, atomically: true, encoding: .utf8)
        let third = verifier(apps)
        XCTAssertEqual(third.sites, [:], "a damaged file is set aside, and everything is fetched again")
    }

    func testExactClaimsGoBeforeWildcardsAndAWildcardIsConfirmedByItsParent() async throws {
        let exact = app("exact.App", domains: "shop.example.net")
        let wildcard = app("wild.App", domains: "*.example.net")
        let verifier = verifier([wildcard, exact])
        let now = Date()
        verifier.record(try file(["org.example.wild.App", "org.example.exact.App"]), for: "example.net", now: now)
        verifier.record(try file(["org.example.exact.App"]), for: "shop.example.net", now: now)
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://shop.example.net/cart")!, now: now).map(\.appID),
                       ["exact.App", "wild.App"])
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://blog.example.net/")!, now: now).map(\.appID), ["wild.App"])
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://example.net/")!, now: now).map(\.appID), [],
                       "a wildcard covers subdomains only")
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "ftp://shop.example.net/")!, now: now).map(\.appID), [])
    }

    func testAWebPagesPayloadMustNameAPageOfTheSiteItWasChosenFor() async throws {
        func payload(_ url: String?) throws -> [UInt8] {
            try UserActivityPayload(activityType: UserActivity.browsingWebType, webpageURL: url.flatMap { URL(string: $0) }).encodedBytes()
        }
        let listed = URL(string: "https://mail.example.org/compose")
        XCTAssertNoThrow(try ContinuationBroker.checkSamePage(payload("https://MAIL.example.org/drafts/1"), as: listed))
        XCTAssertThrowsError(try ContinuationBroker.checkSamePage(payload("https://evil.example/"), as: listed))
        XCTAssertThrowsError(try ContinuationBroker.checkSamePage(payload("http://mail.example.org/"), as: listed))
        XCTAssertThrowsError(try ContinuationBroker.checkSamePage(payload(nil), as: listed))
        let withUserInfo = try UserActivityPayload(activityType: UserActivity.browsingWebType, userInfo: ["draft": "x"],
                                                   webpageURL: listed).encodedBytes()
        XCTAssertThrowsError(try ContinuationBroker.checkSamePage(withUserInfo, as: listed), "a page carries no userInfo")
    }

    func testAnAppWithAnExactClaimGoesBeforeWildcardsWhateverItsOrder() async throws {
        let both = app("both.App", domains: "*.example.net;shop.example.net")
        let exact = app("exact.App", domains: "shop.example.net")
        let verifier = verifier([exact, both])
        let now = Date()
        verifier.record(try file(["org.example.both.App"]), for: "example.net", now: now)
        verifier.record(try file(["org.example.both.App", "org.example.exact.App"]), for: "shop.example.net", now: now)
        XCTAssertEqual(verifier.verifiedApps(for: URL(string: "https://shop.example.net/")!, now: now).map(\.appID),
                       ["exact.App", "both.App"], "both apps' exact claims count, in the apps' order")
    }

    func testASiteIsFetchedAgainWhenTheAppsClaimingItChange() async throws {
        let fetched = FetchCounter()
        let outcome = try file(["org.example.a.App"])
        let verifier = DomainVerifier(stateDirectory: folder, logger: logger) { host in
            await fetched.add(host)
            return outcome
        }
        var apps = [app("a.App", domains: "a.example.org")]
        verifier.installedApps = { apps }
        await verifier.verifyAll()
        let first = await fetched.hosts
        XCTAssertEqual(first, ["a.example.org"])
        verifier.refresh()
        await verifier.waitForFetches()
        let unchanged = await fetched.hosts
        XCTAssertEqual(unchanged, ["a.example.org"], "an answer that holds is not fetched again")

        apps.append(app("b.App", domains: "a.example.org"))
        verifier.refresh()
        await verifier.waitForFetches()
        let changed = await fetched.hosts
        XCTAssertEqual(changed, ["a.example.org", "a.example.org"], "a new claimant has the site fetched again")
        XCTAssertEqual(verifier.claimStates().map(\.state), [.verified, .failed])
    }

    func testNothingIsArmedWhileNoSiteIsDueAndTheNextCheckIsTheEarliestAnswersEnd() async throws {
        let none = verifier([])
        none.refresh()
        XCTAssertNil(none.nextCheck, "no claim: nothing wakes batond for the domains")

        let outcome = try file(["org.example.a.App"], age: 7200)
        let checked = DomainVerifier(stateDirectory: folder, logger: logger) { _ in outcome }
        let apps = [app("a.App", domains: "a.example.org"), app("b.App", domains: "b.example.org")]
        checked.installedApps = { apps }
        let now = Date()
        checked.record(outcome, for: "a.example.org", now: now)
        checked.record(.failure("down"), for: "b.example.org", now: now)
        checked.refresh(now: now)
        XCTAssertEqual(checked.nextCheck?.timeIntervalSince(now) ?? -1, 300, accuracy: 0.001,
                       "the failed site's retry, before the other site's answer ends in 2 h")
    }

    /// A desktop entry that claims a domain, written while batond runs, has its site fetched
    /// at once: the `applications` folder is followed, with no timer.
    func testAnEntryClaimingADomainIsFetchedAsSoonAsItIsWritten() async throws {
        let saved = ["XDG_DATA_HOME", "XDG_DATA_DIRS"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        let applications = folder.appendingPathComponent("home/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        setenv("XDG_DATA_HOME", folder.appendingPathComponent("home").path, 1)
        setenv("XDG_DATA_DIRS", folder.appendingPathComponent("system").path, 1)
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        let fetched = FetchedHosts()
        let verifier = DomainVerifier(stateDirectory: folder, logger: logger) { host in
            await fetched.add(host)
            return .failure("not served")
        }
        verifier.start()
        XCTAssertNil(verifier.nextCheck)
        try ("[Desktop Entry]\nType=Application\nName=Mail\nExec=/bin/true\nX-Baton-TeamID=org.example\n"
            + "X-Baton-ActivityTypes=org.example.mail.compose;\nX-Baton-Domains=mail.example.org;\n")
            .write(to: applications.appendingPathComponent("org.example.Mail.desktop"), atomically: true, encoding: .utf8)
        let started = Date()
        let seen = await pumpMainLoop(timeout: 5) { !fetched.hosts.isEmpty && verifier.nextCheck != nil }
        XCTAssertTrue(seen, "the new entry's site was fetched")
        XCTAssertEqual(fetched.hosts, ["mail.example.org"])
        print("a new entry's site was fetched \(Int(Date().timeIntervalSince(started) * 1000)) ms after it was written")
        XCTAssertNotNil(verifier.nextCheck, "the failed fetch's retry is armed")
    }
}

/// The hosts a verifier asked for, in order.
@MainActor
private final class FetchedHosts {
    private(set) var hosts: [String] = []
    func add(_ host: String) { hosts.append(host) }
}

private actor FetchCounter {
    private(set) var hosts: [String] = []
    func add(_ host: String) { hosts.append(host) }
}
