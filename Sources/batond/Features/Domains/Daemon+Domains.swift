import BatonBus
import BatonGLib
import Foundation

/// Domains' D-Bus half: the records batond answers `ListDomains` and `VerifyDomains` with, and
/// their row of `Diagnose`.
extension Daemon {
    /// The rows of ``methods`` for the web domains apps claim.
    static var domainMethods: [DaemonMethod] {
        [
            DaemonMethod("ListDomains") { daemon, call, _ in call.reply([.dictionaries(daemon.domainRecords)]) },
            DaemonMethod("VerifyDomains") { daemon, call, _ in
                daemon.answer(call) { [domains = daemon.domains] in
                    await domains.verifyAll()
                    return [.dictionaries(daemon.domainRecords)]
                }
            },
        ]
    }

    var domainRecords: [[String: BusValue]] {
        domains.claimStates().map { claim in
            var record: [String: BusValue] = [
                "app-id": .string(claim.appID), "domain": .string(claim.domain), "state": .string(claim.state.rawValue),
            ]
            if let host = claim.host { record["host"] = .string(host) }
            if let reason = claim.reason { record["reason"] = .string(reason) }
            if let site = claim.site {
                if let source = site.source { record["source"] = .string(source) }
                if let fetched = site.fetched { record["fetched"] = .double(fetched.timeIntervalSince1970) }
                if let expires = site.expires { record["expires"] = .double(expires.timeIntervalSince1970) }
                if let checked = site.checked { record["checked"] = .double(checked.timeIntervalSince1970) }
            }
            return record
        }
    }

    /// Whether the web domains apps claim are confirmed by their sites; none when no app
    /// claims one. A claim not fetched yet passes: batond fetches it at once.
    var domainCheck: DiagnosticCheck? {
        let claims = domains.claimStates().filter { $0.state != .invalid }
        guard !claims.isEmpty else { return nil }
        let failed = claims.filter { $0.state == .failed }
        guard failed.isEmpty else {
            let list = failed.map { "\($0.appID) on \($0.domain): \($0.reason ?? "not verified")" }.joined(separator: "; ")
            return .fail("domains", "\(failed.count) of \(claims.count) web domain claim\(claims.count == 1 ? "" : "s") not confirmed by the site, so their pages open in the browser: \(list)",
                         fix: "the site must serve /.well-known/baton-app-site-association listing TEAM.APPID under activitycontinuation.apps; then run baton domains --verify")
        }
        let verified = claims.filter { $0.state == .verified }.count
        return .pass("domains", "\(verified) of \(claims.count) web domain claim\(claims.count == 1 ? "" : "s") confirmed by the site\(verified < claims.count ? ", the rest being fetched" : "")")
    }
}
