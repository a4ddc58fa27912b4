/// A continuation that failed because the origin did not send the file its activity names:
/// its sentence for the person (``ContinuationBroker/withheldDocumentFailure(from:_:)``).
/// Carried to the app and to `baton continue` as `handoffFailed` with this sentence, and shown
/// as it is in the notification of a continuation started from a notification.
struct WithheldDocumentFailure: Error, CustomStringConvertible {
    let description: String
}
