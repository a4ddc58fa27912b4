import Baton
import BatonGLib

/// The errors of Baton's D-Bus contract, each with its D-Bus error name.
///
/// A `UserActivityError` travels as `org.baton.Error.<Case>` with its description as the
/// message; the others are errors of the request itself.
public enum ServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A continuation or fetch failed, for the reason the error gives.
    case activity(UserActivityError)
    /// No activity or offer has this id.
    case unknownActivity(String)
    /// The caller has not called `Register`.
    case notRegistered
    /// No app on this device claims the activity type (for the team, when one is given).
    case noClaimant(activityType: String, teamID: String?)
    /// An argument is malformed; the message says which and why.
    case invalidArguments(String)
    /// The caller may not make this call.
    case accessDenied(String)
    /// No known device has this name or id, or the name is ambiguous.
    case unknownDevice(String)
    /// Pairing could not go on: the message says why (wrong code, nothing to confirm, ...).
    case pairing(String)
    /// The caller cannot be the app it registers as: a Flatpak registering under another
    /// app's id. (A host program that differs from its entry's registers unverified instead.)
    case identityMismatch(String)
    /// The caller reached a limit (registrations per process, unverified apps).
    case limitExceeded(String)

    /// The prefix of every Baton error name.
    public static let namePrefix = "org.baton.Error."

    /// The error's number in ``BatonErrorTable``, for the errors of Baton's own names.
    public var code: Int? { kind?.code }

    /// Which of Baton's errors this is (`BatonErrorKind`), for the errors of Baton's own names.
    package var kind: BatonErrorKind? {
        switch self {
        case .activity(let error): return error.kind
        case .unknownActivity: return .unknownActivity
        case .notRegistered: return .notRegistered
        case .noClaimant: return .noClaimant
        case .unknownDevice: return .unknownDevice
        case .pairing: return .pairing
        case .identityMismatch: return .identityMismatch
        case .invalidArguments, .accessDenied, .limitExceeded: return nil
        }
    }

    /// The D-Bus error name: Baton's (``BatonErrorTable``), or the standard one for a bad,
    /// refused or excessive call.
    public var busName: String {
        switch self {
        case .invalidArguments: return "org.freedesktop.DBus.Error.InvalidArgs"
        case .accessDenied: return "org.freedesktop.DBus.Error.AccessDenied"
        case .limitExceeded: return "org.freedesktop.DBus.Error.LimitsExceeded"
        default: return (kind ?? .handoffFailed).row.name
        }
    }

    public var description: String {
        switch self {
        case .activity(let error): return "\(error) (error \(error.code))"
        case .unknownActivity(let id): return "no activity or offer has the id \"\(Excerpt.of(id))\""
        case .notRegistered: return "the caller is not a registered app: call Register first"
        case .noClaimant(let type, let team):
            return "no app on this device continues \(Excerpt.of(type))" + (team.map { " for team \(Excerpt.of($0))" } ?? "")
        case .invalidArguments(let message): return message
        case .accessDenied(let message): return message
        case .unknownDevice(let message): return message
        case .pairing(let message): return message
        case .identityMismatch(let message): return message
        case .limitExceeded(let message): return message
        }
    }

    /// The `UserActivityError` a failed call stands for, for an app's `didFail`: Baton's
    /// own errors as they were; a call that timed out as `.remoteApplicationTimedOut`; a peer
    /// that left the bus as `.connectionUnavailable`; anything else as `.handoffFailed`.
    public static func userActivityError(from error: any Error) -> UserActivityError {
        switch error {
        case let error as UserActivityError: return error
        case let error as ServiceError:
            if case .activity(let inner) = error { return inner }
            return .handoffFailed(error.description)
        case let error as BusError:
            if let name = error.remoteName {
                if let known = activityError(named: name, message: error.message, details: error.details) {
                    return known
                }
                if name == "org.freedesktop.DBus.Error.NoReply" || name == "org.freedesktop.DBus.Error.ServiceUnknown"
                    || name == "org.freedesktop.DBus.Error.Disconnected" {
                    return .connectionUnavailable(error.message)
                }
            }
            if case .timedOut(let message) = error { return .remoteApplicationTimedOut(message) }
            return .handoffFailed(error.description)
        default:
            return .handoffFailed("\(error)")
        }
    }

    /// The `UserActivityError` behind a Baton error name: from the error's record when it
    /// carries one, else from its number with the reason read out of its message
    /// (``reason(inMessage:code:)``).
    private static func activityError(named name: String, message: String,
                                      details: [String: BusValue]) -> UserActivityError? {
        guard let kind = BatonErrorKind(named: name),
              let error = UserActivityError(kind: kind, reason: reason(inMessage: message, code: kind.code)) else { return nil }
        return details["code"]?.integer == Int64(kind.code) ? UserActivityError(record: details) : error
    }

    /// The reason in the message of an activity error numbered `code` that came without its
    /// record. Such a message is the error's ``description`` (as
    /// ``BatonGLib/BusMethodCall/fail(with:sendingRecord:)`` sends it), so what that adds
    /// around the reason is taken off: the error's own words (`the activity cannot be
    /// encoded: `) and its number (` (error 4643)`), lest the error read back say them twice.
    /// A message in other words is the reason whole.
    static func reason(inMessage message: String, code: Int) -> String {
        // The description of the error around a marker: what it puts before and after a reason.
        let marker = "\u{1}"
        let description = UserActivityError(code: code, reason: marker).description
        guard let range = description.range(of: marker) else { return message }
        let before = String(description[..<range.lowerBound])
        let after = String(description[range.upperBound...])
        // With the number that ServiceError's description adds, or without it.
        let frames = [(before, after + " (error \(code))"), (before, after)]
        var reason = message
        // A message that went through several hops without a record may hold them more than once.
        for _ in 0..<4 {
            guard let (front, back) = frames.first(where: { front, back in
                reason.count >= front.count + back.count && reason.hasPrefix(front) && reason.hasSuffix(back)
            }) else { break }
            reason = String(reason.dropFirst(front.count).dropLast(back.count))
        }
        return reason
    }
}

extension BusMethodCall {
    /// Answers with the D-Bus error of `error`: a ``ServiceError`` or `UserActivityError`
    /// by its name, anything else as `org.baton.Error.HandoffFailed`.
    ///
    /// - Parameter sendingRecord: whether an activity error's record (``BatonErrorTable``)
    ///   follows its message: only for a caller known to be Baton's (an app answering
    ///   batond), since other GDBus callers then lose the message.
    public func fail(with error: any Error, sendingRecord: Bool = false) {
        let serviceError: ServiceError
        switch error {
        case let error as ServiceError: serviceError = error
        case let error as UserActivityError: serviceError = .activity(error)
        default: serviceError = .activity(ServiceError.userActivityError(from: error))
        }
        _ = BatonErrorTable.domain
        var details: [String: BusValue] = [:]
        if sendingRecord, case .activity(let activityError) = serviceError { details = activityError.record }
        fail(name: serviceError.busName, message: serviceError.description, details: details)
    }
}
