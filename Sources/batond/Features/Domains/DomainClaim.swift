/// A web domain an app claims in its desktop entry, so that pages of that domain continue in
/// the app once the domain's association file confirms it:
///
///     X-Baton-Domains=mail.example.org;*.example.net;
///
/// `*.example.net` claims every subdomain of `example.net` (not `example.net` itself), as
/// Apple's wildcard does. Names are compared without case.
struct DomainClaim: Hashable, Sendable, CustomStringConvertible {
    static let key = "X-Baton-Domains"

    /// The domain, lowercased, without the `*.`.
    let domain: String
    /// Whether it claims the subdomains of ``domain`` rather than the domain.
    let isWildcard: Bool

    /// A claim as written, or `nil` when it is not a host name (or `*.` and one).
    init?(_ text: String) {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        isWildcard = lowered.hasPrefix("*.")
        domain = isWildcard ? String(lowered.dropFirst(2)) : lowered
        guard Self.isHostName(domain), !isWildcard || domain.contains(".") else { return nil }
    }

    /// The claims of an entry's value, and the entries that are not claims.
    static func parse(_ value: String?) -> (claims: [DomainClaim], invalid: [String]) {
        var claims: [DomainClaim] = []
        var invalid: [String] = []
        for entry in (value ?? "").split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            if let claim = DomainClaim(entry) {
                if !claims.contains(claim) { claims.append(claim) }
            } else {
                invalid.append(entry)
            }
        }
        return (claims, invalid)
    }

    /// Whether a page of `host` falls under the claim.
    func matches(host: String) -> Bool {
        let host = host.lowercased()
        return isWildcard ? host.hasSuffix("." + domain) : host == domain
    }

    /// The host whose association file confirms the claim: the domain itself (for a wildcard,
    /// the parent domain serves the file, as with Apple's).
    var verifyingHost: String { domain }

    var description: String { (isWildcard ? "*." : "") + domain }

    /// Letters, digits and `-` in labels of 1 to 63, joined by dots, at most 253 in all; no
    /// label starts or ends with `-`; not an IP address (a name the system's trust store can
    /// vouch for).
    static func isHostName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, !(labels.last?.allSatisfy(\.isNumber) ?? true) else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
