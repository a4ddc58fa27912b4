import Foundation

/// A document that can carry a ``UserActivity``, like AppKit's `NSDocument` does for Handoff.
///
/// Its activity is elected when no responder in the main window's chain has one. By default
/// ``updateUserActivityState(_:)`` puts ``fileURL`` under ``UserActivity/documentURLKey``.
///
/// It is for Handoff only: it does not save, autosave, track changes, undo, or ask before
/// closing an edited file; those are the app's. A continued document restores first, then
/// the responders that share its activity (see <doc:DocumentApps>).
@MainActor
open class Document: UserActivityRestoring, ActivityOwner {
    /// Creates a document stored at `fileURL`, or not yet saved when nil.
    public init(fileURL: URL?) {
        self.fileURL = fileURL
    }

    /// Where the document is stored. A change marks its activity for an update pass; under
    /// a ``DocumentController``, a document whose new file is of a type that names an
    /// activity type gets that activity.
    open var fileURL: URL? {
        didSet {
            guard oldValue != fileURL else { return }
            if let documentController {
                documentController.documentDidChangeFileURL(self)
            } else {
                userActivity?.needsSave = true
            }
        }
    }

    /// The controller the document is open in, if any.
    public internal(set) weak var documentController: DocumentController?
    /// Whether ``userActivity`` is the one the controller made for the document's type.
    var hasAutomaticActivity = false

    /// The activity this document owns, held strongly.
    open var userActivity: UserActivity? {
        didSet {
            guard oldValue !== userActivity else { return }
            hasAutomaticActivity = false
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

    /// Reads the document's contents from the file at `url`, of the declared type named
    /// `typeName`; ``DocumentController/openDocument(withContentsOf:display:)`` calls it. The
    /// default reads nothing.
    open func read(from url: URL, ofType typeName: String) throws {}

    /// Makes and presents the document's windows, once it is open; the default makes none.
    open func makeWindowControllers() {}

    /// Closes the document: its activity is invalidated and it leaves its controller.
    open func close() {
        userActivity?.invalidate()
        documentController?.removeDocument(self)
    }

    /// Gives up the activity the controller made for the document's type.
    func dropAutomaticActivity() {
        userActivity?.invalidate()
        userActivity = nil
    }

    var isDocument: Bool { true }

    isolated deinit {
        userActivity?.removeOwner(ObjectIdentifier(self))
    }
}
