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

    /// Where election starts; nil means the window itself. Changing it asks for an election.
    open var firstResponder: Responder? {
        didSet {
            if oldValue !== firstResponder { electingCenter?.setNeedsElection() }
        }
    }

    /// The controller that manages this window, held weakly (the controller owns the window).
    open weak var windowController: WindowController? {
        didSet {
            if oldValue !== windowController { electingCenter?.setNeedsElection() }
        }
    }

    isolated deinit {
        electingCenter?.setNeedsElection()
    }
}
