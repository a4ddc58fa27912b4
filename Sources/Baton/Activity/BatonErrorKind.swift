/// Every error Baton's contract numbers and names, one case each, and in ``row`` its number
/// and D-Bus error name: the one place either is written.
///
/// `UserActivityError/code`, BatonBus's `ServiceError.code`, `BatonErrorTable` and reading an
/// error back from its number or name all go through it. It lives in the core, which knows
/// nothing of D-Bus otherwise, because `UserActivityError/code` is the core's; it is not
/// public: `BatonErrorTable` is the public face of the same rows.
package enum BatonErrorKind: CaseIterable, Hashable, Sendable {
    case unknownActivity, notRegistered, noClaimant, unknownDevice, pairing, identityMismatch
    case cancelled, handoffFailed, connectionUnavailable, remoteApplicationTimedOut, userInfoTooLarge
    case invalidWebpageURL, invalidUserInfo, malformedPayload, invalidActivity

    /// The error's number and D-Bus error name. A `UserActivityError` keeps Apple's number
    /// where Apple has one; the service's own errors are numbered from 1.
    package var row: (code: Int32, name: String) {
        switch self {
        case .unknownActivity: (1, "org.baton.Error.UnknownActivity")
        case .notRegistered: (2, "org.baton.Error.NotRegistered")
        case .noClaimant: (3, "org.baton.Error.NoClaimant")
        case .unknownDevice: (4, "org.baton.Error.UnknownDevice")
        case .pairing: (5, "org.baton.Error.Pairing")
        case .identityMismatch: (6, "org.baton.Error.IdentityMismatch")
        case .cancelled: (3072, "org.baton.Error.Cancelled")
        case .handoffFailed: (4608, "org.baton.Error.HandoffFailed")
        case .connectionUnavailable: (4609, "org.baton.Error.ConnectionUnavailable")
        case .remoteApplicationTimedOut: (4610, "org.baton.Error.RemoteApplicationTimedOut")
        case .userInfoTooLarge: (4611, "org.baton.Error.UserInfoTooLarge")
        case .invalidWebpageURL: (4640, "org.baton.Error.InvalidWebpageURL")
        case .invalidUserInfo: (4641, "org.baton.Error.InvalidUserInfo")
        case .malformedPayload: (4642, "org.baton.Error.MalformedPayload")
        case .invalidActivity: (4643, "org.baton.Error.InvalidActivity")
        }
    }

    /// The error's number.
    package var code: Int { Int(row.code) }

    /// The error numbered `code`, if Baton has one.
    package init?(code: Int) {
        guard let kind = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = kind
    }

    /// The error of the D-Bus error name `name`, if it is Baton's.
    package init?(named name: String) {
        guard let kind = Self.allCases.first(where: { $0.row.name == name }) else { return nil }
        self = kind
    }
}
