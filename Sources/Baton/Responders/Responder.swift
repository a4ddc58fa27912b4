/// An object in a responder chain that can carry a ``UserActivity``: a view, a window,
/// a window controller, the application.
///
/// Setting ``userActivity`` makes this responder an owner of the activity: Baton elects it
/// current while the responder is in the main window's chain, asks the responder to fill
/// `userInfo` through ``updateUserActivityState(_:)`` in update passes, and invalidates the
/// activity when its last owner lets go.
@MainActor
open class Responder: UserActivityRestoring, ActivityOwner {
    public init() {}

    /// The next responder up the chain; election walks along it.
    ///
    /// Held strongly, so point it up the chain only (a widget to its container, a window to
    /// its controller or the application): a window holds its first responder weakly and
    /// its window controller weakly, so no chain keeps itself alive.
    open var nextResponder: Responder? {
        didSet {
            #if DEBUG
            assert(!ResponderChain.hasCycle(from: self), "a responder chain must never cycle")
            #endif
        }
    }

    /// The activity this responder owns, held strongly. Setting it, or clearing it, asks
    /// the activity's center for a new election.
    open var userActivity: UserActivity? {
        didSet {
            guard oldValue !== userActivity else { return }
            oldValue?.removeOwner(ObjectIdentifier(self))
            userActivity?.addOwner(self)
            ResponderChain.activityDidChange(from: oldValue, to: userActivity)
        }
    }

    /// Fills `userActivity.userInfo` with this responder's state. The default does nothing.
    ///
    /// Called in an update pass after `userInfo` was emptied. Subclasses call `super`.
    open func updateUserActivityState(_ userActivity: UserActivity) {}

    /// Puts this responder back into the state saved in `userActivity`. The default does nothing.
    open func restoreUserActivityState(_ userActivity: UserActivity) {}

    var isDocument: Bool { false }

    isolated deinit {
        userActivity?.removeOwner(ObjectIdentifier(self))
    }
}
