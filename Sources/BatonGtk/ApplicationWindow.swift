import Baton
import BatonGLib
import CGLib
import CGtk

/// A `GtkApplicationWindow` that is a Baton `Window`.
///
/// Its `Window/firstResponder` follows GTK focus: the responder of the focused widget or
/// its nearest ancestor with one (nil, meaning the window itself, when none has one). When
/// the window is active in its ``BatonApplication`` it is the center's main window. Its
/// next responder is its window controller, or the application. When GTK destroys the
/// window, it lets go of its activity and stops being the main window.
@MainActor
open class ApplicationWindow: Window {
    static let dataKey = "baton-window"

    /// The GTK window, until it is destroyed.
    public private(set) var gtkWindow: UnsafeMutablePointer<GtkWindow>?
    /// The application the window belongs to.
    public let application: BatonApplication

    /// Creates a `GtkApplicationWindow` for `application`. The window is not shown yet:
    /// call ``present()``.
    public init(application: BatonApplication) {
        self.application = application
        let window = baton_window(gtk_application_window_new(application.gtkApplication))!
        gtkWindow = window
        super.init()
        attach(to: window)
    }

    /// Makes a window the caller already created a Baton window of `application`: a
    /// `GtkWindow` or an instance of a subclass, such as `GtkApplicationWindow` or
    /// libadwaita's `AdwApplicationWindow` (cast it with `baton_window(_:)`). The window
    /// joins `application` if it belongs to none yet. Not shown yet: call ``present()``.
    /// (Give an `AdwApplicationWindow` its content with `adw_application_window_set_content`,
    /// not ``setChild(_:)``.)
    public init(wrapping window: UnsafeMutablePointer<GtkWindow>, application: BatonApplication) {
        self.application = application
        gtkWindow = window
        super.init()
        if gtk_window_get_application(window) == nil {
            gtk_window_set_application(window, application.gtkApplication)
        }
        attach(to: window)
    }

    /// Follows the GTK window's focus and destruction, and tells the application.
    private func attach(to window: UnsafeMutablePointer<GtkWindow>) {
        GObjectData.attach(self, to: UnsafeMutableRawPointer(window), key: Self.dataKey)
        GObjectSignals.onNotify(UnsafeMutableRawPointer(window), "focus-widget") { [weak self] in
            self?.focusDidMove()
        }
        GObjectSignals.connect(UnsafeMutableRawPointer(window), "destroy") { [weak self] in
            self?.windowWasDestroyed()
        }
        GObjectSignals.onNotify(UnsafeMutableRawPointer(window), "is-active") { [weak self] in
            self?.application.windowActivationDidChange()
        }
        connectCloseRequest(window)
        application.windowDidOpen(self)
    }

    /// Whether the window may close now, asked when the person closes it (the close button,
    /// ``close()``), as AppKit's `windowShouldClose(_:)`: return `false` to keep it open, for
    /// example while asking whether to discard unsaved work. ``destroy()`` does not ask. The
    /// default is `true`.
    open func windowShouldClose() -> Bool {
        true
    }

    /// Asks ``windowShouldClose()`` on GTK's `close-request`.
    private func connectCloseRequest(_ window: UnsafeMutablePointer<GtkWindow>) {
        let box = Unmanaged.passRetained(CloseRequestHandler(self)).toOpaque()
        let trampoline: @convention(c) (gpointer?, gpointer?) -> gboolean = { _, data in
            guard let data else { return 0 }
            let handler = Unmanaged<CloseRequestHandler>.fromOpaque(data).takeUnretainedValue()
            // GTK's convention: TRUE stops the close.
            return MainActor.assumeIsolated { handler.window?.windowShouldClose() ?? true } ? 0 : 1
        }
        baton_signal_connect(UnsafeMutableRawPointer(window), "close-request",
                             unsafeBitCast(trampoline, to: GCallback.self), box, { data, _ in
                                 guard let data else { return }
                                 Unmanaged<CloseRequestHandler>.fromOpaque(data).release()
                             })
    }

    /// The Baton window of a GTK window, if it has one.
    public static func attached(to window: UnsafeMutableRawPointer) -> ApplicationWindow? {
        GObjectData.attached(ApplicationWindow.self, to: window, key: dataKey)
    }

    /// The window as a `GtkWidget`, until it is destroyed.
    public var widget: UnsafeMutablePointer<GtkWidget>? {
        gtkWindow.map { baton_widget($0) }
    }

    /// The window's title.
    public var title: String? {
        get { gtkWindow.flatMap { gtk_window_get_title($0) }.map { String(cString: $0) } }
        set { if let gtkWindow { gtk_window_set_title(gtkWindow, newValue) } }
    }

    /// Sets the window's content.
    public func setChild(_ child: UnsafeMutablePointer<GtkWidget>?) {
        if let gtkWindow { gtk_window_set_child(gtkWindow, child) }
    }

    /// Shows the window and asks for it to be the active one. Windows come to the front in
    /// the order they are presented, on Wayland too: one presented while an earlier one is
    /// still being mapped is presented right after it. The first window presented after the
    /// service delivered a desktop activation token (a continuation the person asked for
    /// from a notification) carries it, so the desktop lets it come to the front.
    public func present() {
        application.present(self)
    }

    /// Closes the window as the close button would (`close-request` may keep it open).
    public func close() {
        if let gtkWindow { gtk_window_close(gtkWindow) }
    }

    /// Destroys the window at once.
    public func destroy() {
        if let gtkWindow { gtk_window_destroy(gtkWindow) }
    }

    /// The one set, else the window controller, else the application.
    open override var nextResponder: Responder? {
        get { super.nextResponder ?? application }
        set { super.nextResponder = newValue }
    }

    open override var windowController: WindowController? {
        didSet {
            if let windowController, windowController.nextResponder == nil {
                windowController.nextResponder = application
            }
        }
    }

    /// Makes the first responder the responder of the focused widget (or its nearest
    /// ancestor with one).
    func focusDidMove() {
        guard let gtkWindow else { return }
        let responder = WidgetResponder.nearest(from: gtk_window_get_focus(gtkWindow))
        if firstResponder !== responder { firstResponder = responder }
    }

    private func windowWasDestroyed() {
        gtkWindow = nil
        firstResponder = nil
        userActivity = nil
        if application.center.mainWindow === self {
            application.center.mainWindow = nil
        }
        application.windowWasDestroyed(self)
    }
}

/// What a window's `close-request` handler holds: the window, weakly.
private final class CloseRequestHandler {
    weak var window: ApplicationWindow?

    init(_ window: ApplicationWindow) {
        self.window = window
    }
}
