/// A window: the start of a responder chain.
///
/// When the window is an ``ActivityCenter``'s ``ActivityCenter/mainWindow``, election walks
/// from its ``firstResponder`` (or the window itself) along `nextResponder`, then falls back
/// to its window controller's document.
@MainActor
open class Window: Responder {
    /// The center whose main window this is, so focus changes re-elect there.
    weak var electingCenter: ActivityCenter?

    public override init() {
        super.init()
    }

    /// Where election starts, held weakly; nil means the window itself. Changing it asks for
    /// an election.
    open weak var firstResponder: Responder? {
        didSet {
            if oldValue !== firstResponder { electingCenter?.setNeedsElection() }
        }
    }

    /// The next responder: the one set, else the window controller.
    open override var nextResponder: Responder? {
        get { super.nextResponder ?? windowController }
        set { super.nextResponder = newValue }
    }

    /// The controller that manages this window, held weakly (the controller owns the window).
    open weak var windowController: WindowController? {
        didSet {
            if oldValue !== windowController { electingCenter?.setNeedsElection() }
        }
    }

    /// The activity election would choose if this were the main window: the first valid,
    /// eligible activity from ``firstResponder`` (or the window) along the chain, else the
    /// window controller's document's.
    public var electableActivity: UserActivity? {
        if let activity = ResponderChain.firstEligibleActivity(from: firstResponder ?? self) {
            return activity
        }
        guard let activity = windowController?.document?.userActivity, activity.isElectable else { return nil }
        return activity
    }

    isolated deinit {
        electingCenter?.setNeedsElection()
    }
}
