import BatonGLib
import Foundation

/// The records batond answers `ListDomains` and `VerifyDomains` with.
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
}
