import Foundation

extension Application {
    /// Continues an activity the delegate declined (or had no delegate to take) by reopening
    /// the document it names, as AppKit does: through the center's ``DocumentController``, when the
    /// activity carries a file URL under ``UserActivity/documentURLKey`` of a type the app
    /// declares for this activity type. The document and everything that shares its activity
    /// (its windows' responders) restore the incoming activity.
    ///
    /// - Returns: `nil` once restored, else the error that failed the continuation: `declined`,
    ///   with why the document could not be reopened when it names one. Either way the trace
    ///   records one of `continued` or `failed`, at once. With `showsFailure`, a document that
    ///   could not be reopened is also shown to the person (``presentError(_:)`` with a
    ///   ``DocumentReopenFailure``): one they chose to continue, not a window the app saved at
    ///   its last quit (the app says itself why it cannot bring those back).
    func reopenDocument(for activity: UserActivity, whenRestored restored: (@MainActor () -> Void)?,
                        showsFailure: Bool, declined: String) -> UserActivityError? {
        let failure: UserActivityError
        if activity.userInfo[UserActivity.documentURLKey] == nil {
            failure = .handoffFailed(declined)
        } else if let controller = center.documentController {
            do {
                let document = try controller.reopenDocument(for: activity)
                center.emit(.continued(activity))
                for restorer in document.restorers { restorer.restoreUserActivityState(activity) }
                center.emit(.restored(activity))
                restored?()
                return nil
            } catch {
                failure = .handoffFailed("\(declined), and its document could not be reopened: \(error)")
            }
        } else {
            failure = .handoffFailed("\(declined), and no DocumentController reopens its document")
        }
        center.emit(.failed(activityType: activity.activityType, error: failure))
        if showsFailure, activity.userInfo[UserActivity.documentURLKey] != nil {
            // The delegate left the document to the framework, and it could not be opened:
            // the person, who chose to continue it, is told (didFail… is not called).
            let name = UserActivity.documentURL(in: activity.userInfo)?.lastPathComponent ?? ""
            presentError(DocumentReopenFailure(documentName: name, reason: failure.description))
        }
        return failure
    }
}

extension DocumentController {
    /// Opens (or finds open) the document a continued activity names.
    ///
    /// - Throws: ``DocumentError`` when the activity's document URL is not a file's, or its
    ///   file is of no type the app declares for the activity's type; what reading it throws.
    func reopenDocument(for activity: UserActivity) throws -> Document {
        guard let url = UserActivity.documentURL(in: activity.userInfo) else { throw DocumentError.noDocumentURL }
        guard url.isFileURL else { throw DocumentError.notAFile(url) }
        guard documentType(for: url)?.activityType == activity.activityType else {
            throw DocumentError.undeclaredType(url)
        }
        return try openDocument(withContentsOf: url)
    }
}

extension Document {
    /// What restores an incoming activity for this document: the document, then the
    /// responders that share its activity.
    var restorers: [any UserActivityRestoring] {
        guard let activity = userActivity else { return [self] }
        let owners = activity.owners.liveOwners().compactMap { $0 as? any UserActivityRestoring }
        return [self] + owners.filter { $0 !== self }
    }
}
