/// Manages one window and, optionally, the document shown in it.
///
/// Setting ``window`` makes this controller the window's ``Window/windowController``, and so
/// its next responder unless the window has another, the way AppKit's `NSWindowController`
/// does.
@MainActor
open class WindowController: Responder {
    public override init() {
        super.init()
    }

    /// The window this controller manages, held strongly.
    open var window: Window? {
        didSet {
            guard oldValue !== window else { return }
            if let oldValue, oldValue.windowController === self {
                oldValue.windowController = nil
            }
            window?.windowController = self
        }
    }

    /// The document shown in the window; its activity is election's fallback.
    open var document: Document? {
        didSet {
            if oldValue !== document { window?.electingCenter?.setNeedsElection() }
        }
    }
}
