/// Told about the life of one ``UserActivity``. Every method has a default that does nothing.
@MainActor
public protocol UserActivityDelegate: AnyObject {
    /// Called in an update pass, after the owners have filled `userInfo`, before it is used.
    func userActivityWillSave(_ userActivity: UserActivity)
    /// Called when another device has continued the activity.
    func userActivityWasContinued(_ userActivity: UserActivity)
    /// Called when another device has continued the activity, with that device's name as the
    /// person knows it, so the app can say where it went ("“Lunch” continued on Study
    /// desktop"). The default calls ``userActivityWasContinued(_:)``.
    func userActivity(_ userActivity: UserActivity, wasContinuedOn device: String)
    /// The app continuing the activity opened a continuation stream to this one: read its
    /// request and answer on `stream`, then close it. The default closes it at once.
    func userActivity(_ userActivity: UserActivity, didReceive stream: ContinuationStream)
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ userActivity: UserActivity) {}
    public func userActivityWasContinued(_ userActivity: UserActivity) {}
    public func userActivity(_ userActivity: UserActivity, wasContinuedOn device: String) {
        userActivityWasContinued(userActivity)
    }
    public func userActivity(_ userActivity: UserActivity, didReceive stream: ContinuationStream) { stream.close() }
}

/// An object that can put itself back into the state an activity describes:
/// responders and documents, handed to a continuation's restoration handler.
@MainActor
public protocol UserActivityRestoring: AnyObject {
    /// Restores the state saved in `userActivity`.
    func restoreUserActivityState(_ userActivity: UserActivity)
}
