import Baton
import BatonGLib

/// The errors of Baton's D-Bus contract, each with its D-Bus error name.
///
/// A ``UserActivityError`` travels as `org.baton.Error.<Case>` with its description as the
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

    /// The D-Bus error name.
    public var busName: String {
        switch self {
        case .activity(let error): return Self.namePrefix + Self.name(of: error)
        case .unknownActivity: return Self.namePrefix + "UnknownActivity"
        case .notRegistered: return Self.namePrefix + "NotRegistered"
        case .noClaimant: return Self.namePrefix + "NoClaimant"
        case .invalidArguments: return "org.freedesktop.DBus.Error.InvalidArgs"
        case .accessDenied: return "org.freedesktop.DBus.Error.AccessDenied"
        case .unknownDevice: return Self.namePrefix + "UnknownDevice"
        case .pairing: return Self.namePrefix + "Pairing"
        case .identityMismatch: return Self.namePrefix + "IdentityMismatch"
        case .limitExceeded: return "org.freedesktop.DBus.Error.LimitsExceeded"
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
                if name.hasPrefix(namePrefix), let known = activityError(named: name, message: error.message) {
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

    private static func name(of error: UserActivityError) -> String {
        switch error {
        case .cancelled: return "Cancelled"
        case .handoffFailed: return "HandoffFailed"
        case .connectionUnavailable: return "ConnectionUnavailable"
        case .remoteApplicationTimedOut: return "RemoteApplicationTimedOut"
        case .userInfoTooLarge: return "UserInfoTooLarge"
        case .invalidWebpageURL: return "InvalidWebpageURL"
        case .invalidUserInfo: return "InvalidUserInfo"
        case .malformedPayload: return "MalformedPayload"
        case .invalidActivity: return "InvalidActivity"
        }
    }

    /// The `UserActivityError` behind a Baton error name, with the message as its reason.
    private static func activityError(named name: String, message: String) -> UserActivityError? {
        switch String(name.dropFirst(namePrefix.count)) {
        case "Cancelled": return .cancelled
        case "HandoffFailed": return .handoffFailed(message)
        case "ConnectionUnavailable": return .connectionUnavailable(message)
        case "RemoteApplicationTimedOut": return .remoteApplicationTimedOut(message)
        case "UserInfoTooLarge":
            let numbers = message.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            return .userInfoTooLarge(size: numbers.first ?? 0, limit: numbers.dropFirst().first ?? UserActivity.maximumUserInfoSize)
        case "InvalidWebpageURL": return .invalidWebpageURL(message)
        case "InvalidUserInfo": return .invalidUserInfo(message)
        case "MalformedPayload": return .malformedPayload(message)
        case "InvalidActivity": return .invalidActivity(message)
        default: return nil
        }
    }
}

extension BusMethodCall {
    /// Answers with the D-Bus error of `error`: a ``ServiceError`` or ``UserActivityError``
    /// by its name, anything else as `org.baton.Error.HandoffFailed`.
    public func fail(with error: any Error) {
        let serviceError: ServiceError
        switch error {
        case let error as ServiceError: serviceError = error
        case let error as UserActivityError: serviceError = .activity(error)
        default: serviceError = .activity(ServiceError.userActivityError(from: error))
        }
        fail(name: serviceError.busName, message: serviceError.description)
    }
}
