import Foundation

/// A document that can carry a ``UserActivity``, like AppKit's `NSDocument`.
///
/// Its activity is elected when no responder in the main window's chain has one. By default
/// ``updateUserActivityState(_:)`` puts ``fileURL`` under ``UserActivity/documentURLKey``.
@MainActor
open class Document: UserActivityRestoring, ActivityOwner {
    /// Creates a document stored at `fileURL`, or not yet saved when nil.
    public init(fileURL: URL?) {
        self.fileURL = fileURL
    }

    /// Where the document is stored.
    open var fileURL: URL?

    /// The activity this document owns, held strongly.
    open var userActivity: UserActivity? {
        didSet {
            guard oldValue !== userActivity else { return }
            oldValue?.removeOwner(ObjectIdentifier(self))
            userActivity?.addOwner(self)
            ResponderChain.activityDidChange(from: oldValue, to: userActivity)
        }
    }

    /// Fills `userInfo`; the default puts ``fileURL`` under ``UserActivity/documentURLKey``.
    /// Subclasses call `super`.
    open func updateUserActivityState(_ userActivity: UserActivity) {
        if let fileURL {
            userActivity.addUserInfoEntries(from: [UserActivity.documentURLKey: .url(fileURL)])
        }
    }

    /// Restores the state saved in `userActivity`. The default does nothing.
    open func restoreUserActivityState(_ userActivity: UserActivity) {}

    /// Closes the document: its activity is invalidated.
    open func close() {
        userActivity?.invalidate()
    }

    var isDocument: Bool { true }

    isolated deinit {
        userActivity?.removeOwner(ObjectIdentifier(self))
    }
}
