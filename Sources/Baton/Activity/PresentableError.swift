import Foundation

/// An error with a sentence for the person who sees it, besides its `description`, which is
/// for the developer and the log.
///
/// ``Application/presentError(_:)`` in BatonGtk shows ``messageForPeople`` in its dialog and
/// writes the `description` to the log. ``UserActivityError`` and ``DocumentReopenFailure``
/// adopt it; adopt it in your own errors to have them shown the same way.
public protocol PresentableError: Error {
    /// What went wrong, in a sentence a person understands: no type names, sizes or limits.
    var messageForPeople: String { get }
}

extension UserActivityError: PresentableError {
    /// A sentence for the person for each kind of error; the reason (`description`) goes to
    /// the log.
    public var messageForPeople: String {
        switch self {
        case .cancelled:
            "The continuation was cancelled."
        case .handoffFailed:
            "The activity could not be continued on this device."
        case .connectionUnavailable:
            "The other device could not be reached."
        case .remoteApplicationTimedOut:
            "The app on the other device did not answer in time."
        case .userInfoTooLarge:
            "The activity holds too much to be sent to another device."
        case .invalidWebpageURL, .invalidUserInfo, .invalidActivity:
            "The activity could not be prepared for another device."
        case .malformedPayload:
            "The activity arrived damaged and could not be read."
        }
    }
}

/// A continued activity whose document could not be opened, after the app's delegate left
/// it to the framework (see ``DocumentController``): what ``Application/presentError(_:)`` is
/// given. The continuation itself fails with ``UserActivityError/handoffFailed(_:)``.
public struct DocumentReopenFailure: PresentableError, Hashable, Sendable, CustomStringConvertible {
    /// The document's file name, as the person knows it; empty when the activity named no file.
    public let documentName: String
    /// Why, for the log: the continuation's error.
    public let reason: String

    public init(documentName: String, reason: String) {
        self.documentName = documentName
        self.reason = reason
    }

    public var messageForPeople: String {
        documentName.isEmpty ? "The document could not be opened."
            : "“\(documentName)” could not be opened."
    }

    public var description: String { reason }
}
