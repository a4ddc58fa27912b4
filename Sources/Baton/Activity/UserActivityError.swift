import Foundation

/// Why an activity could not be set up, encoded or continued.
///
/// ``code`` gives Apple's `NSUserActivity` error numbers where Apple has one, so code ported
/// from a Mac app can keep comparing numbers.
public enum UserActivityError: Error, Hashable, Sendable {
    /// The URL given to ``UserActivity/setWebpageURL(_:)`` is not an absolute http or https URL
    /// of at most ``ActivityLimits/maximumWebpageURLLength`` bytes.
    case invalidWebpageURL(String)
    /// The continuation was cancelled: superseded by a newer one, or dropped without an outcome.
    case cancelled
    /// The activity could not be handed off; the reason says why.
    case handoffFailed(String)
    /// The device that offered the activity could not be reached.
    case connectionUnavailable(String)
    /// The app that owns the activity did not answer in time.
    case remoteApplicationTimedOut(String)
    /// The encoded `userInfo` is larger than ``UserActivity/maximumUserInfoSize``.
    case userInfoTooLarge(size: Int, limit: Int)
    /// A value could not be turned into a `userInfo`, or a `userInfo` into the requested type.
    case invalidUserInfo(String)
    /// Bytes given to ``UserActivityPayload/init(decoding:)-(Data)`` are not an encoded activity.
    case malformedPayload(String)
    /// The activity cannot be encoded: an empty type, a text field over
    /// ``UserActivityPayload/maximumFieldLength``, or more than
    /// ``UserActivityPayload/maximumEncodedSize`` bytes in all.
    case invalidActivity(String)

    /// Apple's number for this error: 3072 cancelled, 4608 handoffFailed,
    /// 4609 connectionUnavailable, 4610 remoteApplicationTimedOut, 4611 userInfoTooLarge.
    /// Baton's own cases use numbers after Apple's in the same range: 4640 invalidWebpageURL,
    /// 4641 invalidUserInfo, 4642 malformedPayload, 4643 invalidActivity.
    public var code: Int { kind.code }

    /// Which error this is, in `BatonErrorKind`, the table of Baton's error numbers.
    package var kind: BatonErrorKind {
        switch self {
        case .cancelled: .cancelled
        case .handoffFailed: .handoffFailed
        case .connectionUnavailable: .connectionUnavailable
        case .remoteApplicationTimedOut: .remoteApplicationTimedOut
        case .userInfoTooLarge: .userInfoTooLarge
        case .invalidWebpageURL: .invalidWebpageURL
        case .invalidUserInfo: .invalidUserInfo
        case .malformedPayload: .malformedPayload
        case .invalidActivity: .invalidActivity
        }
    }

    /// The error of kind `kind` with `reason` as its text, and `size` and `limit` for
    /// ``userInfoTooLarge(size:limit:)``; `nil` for a kind that is the service's, not an
    /// activity's.
    package init?(kind: BatonErrorKind, reason: String, size: Int = 0,
                  limit: Int = UserActivity.maximumUserInfoSize) {
        switch kind {
        case .cancelled: self = .cancelled
        case .handoffFailed: self = .handoffFailed(reason)
        case .connectionUnavailable: self = .connectionUnavailable(reason)
        case .remoteApplicationTimedOut: self = .remoteApplicationTimedOut(reason)
        case .userInfoTooLarge: self = .userInfoTooLarge(size: size, limit: limit)
        case .invalidWebpageURL: self = .invalidWebpageURL(reason)
        case .invalidUserInfo: self = .invalidUserInfo(reason)
        case .malformedPayload: self = .malformedPayload(reason)
        case .invalidActivity: self = .invalidActivity(reason)
        case .unknownActivity, .notRegistered, .noClaimant, .unknownDevice, .pairing, .identityMismatch: return nil
        }
    }
}

extension UserActivityError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .invalidWebpageURL(let url):
            return "invalid webpage URL \"\(url)\": a webpage URL is an absolute http or https URL of at most \(ActivityLimits.maximumWebpageURLLength) bytes"
        case .cancelled:
            return "the continuation was cancelled"
        case .handoffFailed(let reason):
            return "handoff failed: \(reason)"
        case .connectionUnavailable(let reason):
            return "the activity's origin could not be reached: \(reason)"
        case .remoteApplicationTimedOut(let reason):
            return "an app did not answer in time: \(reason)"
        case .userInfoTooLarge(let size, let limit):
            // A size of 0 stands for one not known (an error from an app that sent no record).
            return size > 0 ? "userInfo is \(size) bytes encoded, over the limit of \(limit) bytes"
                : "userInfo is over the limit of \(limit) bytes encoded"
        case .invalidUserInfo(let reason):
            return "invalid userInfo: \(reason)"
        case .malformedPayload(let reason):
            return "malformed activity payload: \(reason)"
        case .invalidActivity(let reason):
            return "the activity cannot be encoded: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
