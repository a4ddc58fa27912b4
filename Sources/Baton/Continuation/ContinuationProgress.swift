/// How a continuation stands while its activity is on its way but held up: the document it
/// names is still syncing to this device, say. The Baton service reports it; the app shows it
/// (``ApplicationDelegate/application(_:didUpdateContinuationProgress:)``, by default
/// ``Application/presentContinuationProgress(_:)``).
public struct ContinuationProgress: Hashable, Sendable {
    /// The type of the activity being continued.
    public var activityType: String
    /// What is being waited for, in a sentence for the person: "Waiting for report.md to
    /// sync".
    public var message: String
    /// How much of it is done, from 0 to 1; `nil` when that is not known.
    public var fractionCompleted: Double?

    public init(activityType: String, message: String, fractionCompleted: Double? = nil) {
        self.activityType = activityType
        self.message = message
        self.fractionCompleted = fractionCompleted.map { min(max($0, 0), 1) }
    }
}
