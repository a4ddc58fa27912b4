import Baton
import BatonGLib

extension UserActivityError {
    /// The error as the `a{sv}` record of `FailContinuation`: code, reason, and for
    /// `userInfoTooLarge(size:limit:)` the size and limit.
    public var record: [String: BusValue] {
        var record: [String: BusValue] = ["code": .int32(Int32(code)), "reason": .string(reason)]
        if case .userInfoTooLarge(let size, let limit) = self {
            record["size"] = .int64(Int64(size))
            record["limit"] = .int64(Int64(limit))
        }
        return record
    }

    /// Reads an error record (``BatonErrorTable``); an unknown code becomes
    /// `handoffFailed(_:)`.
    public init(record: [String: BusValue]) {
        self.init(code: Int(clamping: record["code"]?.integer ?? Int64(BatonErrorKind.handoffFailed.code)), reason: record["reason"]?.string ?? "no reason given",
                  size: Int(clamping: record["size"]?.integer ?? 0),
                  limit: Int(clamping: record["limit"]?.integer ?? Int64(UserActivity.maximumUserInfoSize)))
    }

    /// The error numbered `code` (``code``), with `reason` as its text, and `size` and `limit`
    /// for ``userInfoTooLarge(size:limit:)``; an unknown code, or one of the service's own
    /// errors, becomes ``handoffFailed(_:)``.
    init(code: Int, reason: String, size: Int = 0, limit: Int = UserActivity.maximumUserInfoSize) {
        self = BatonErrorKind(code: code).flatMap { Self(kind: $0, reason: reason, size: size, limit: limit) }
            ?? .handoffFailed(reason)
    }

    /// The text the case carries, or its description when it carries none.
    var reason: String {
        switch self {
        case .handoffFailed(let text), .connectionUnavailable(let text), .remoteApplicationTimedOut(let text),
             .invalidWebpageURL(let text), .invalidUserInfo(let text), .malformedPayload(let text),
             .invalidActivity(let text):
            return text
        case .cancelled, .userInfoTooLarge:
            return description
        }
    }
}
