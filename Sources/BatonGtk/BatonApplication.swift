import Baton
import BatonGLib
import CGLib
import CGtk

/// A `GtkApplication` that is a Baton ``Application``: the last responder of every chain,
/// and where incoming activities enter.
///
/// Creating one installs a ``GLibScheduler`` as the center's scheduler, so elections and
/// update passes run lazily on the GLib main loop. ``run(arguments:)`` also bridges
/// libdispatch's main queue into that loop, so `@MainActor` tasks run inside it. The
/// application's active window is the center's main window.
@MainActor
open class BatonApplication: Application {
    /// The GTK application.
    public let gtkApplication: UnsafeMutablePointer<GtkApplication>
    /// Called when the application starts (GApplication `startup`).
    public var onStartup: (@MainActor () -> Void)?
    /// Called when the application is activated (GApplication `activate`), to show a window.
    public var onActivate: (@MainActor () -> Void)?

    /// State restoration, once enabled.
    public internal(set) var stateRestoration: StateRestoration?

    /// The link to the Baton service, once Handoff is enabled.
    public internal(set) var handoff: HandoffClient?

    /// Windows kept alive from creation until GTK destroys them.
    private var windows: [ApplicationWindow] = []

    /// Flags for an application where every launch is its own process (no D-Bus uniqueness).
    public static let nonUniqueFlags = G_APPLICATION_NON_UNIQUE

    /// Creates the application with a reverse-DNS `applicationID`.
    public init(applicationID: String, flags: GApplicationFlags = G_APPLICATION_DEFAULT_FLAGS,
                center: ActivityCenter = .shared) {
        gtkApplication = gtk_application_new(applicationID, flags)
        super.init(center: center)
        center.scheduler = GLibScheduler()
        let instance = UnsafeMutableRawPointer(gtkApplication)
        GObjectSignals.onNotify(instance, "active-window") { [weak self] in
            self?.activeWindowDidChange()
        }
        GObjectSignals.connect(instance, "startup") { [weak self] in self?.onStartup?() }
        GObjectSignals.connect(instance, "activate") { [weak self] in self?.onActivate?() }
    }

    /// The application's id.
    public var applicationID: String {
        g_application_get_application_id(baton_gapplication(gtkApplication)).map { String(cString: $0) } ?? ""
    }

    /// The windows of this application that GTK has not destroyed.
    public var applicationWindows: [ApplicationWindow] { windows }

    /// Registers the application with the session (and runs `startup`) without running the
    /// main loop: for tests and tools that drive the loop themselves.
    ///
    /// - Throws: ``BatonGtkError/registrationFailed(_:)`` with GLib's message.
    public func register() throws {
        var error: UnsafeMutablePointer<GError>?
        guard g_application_register(baton_gapplication(gtkApplication), nil, &error).isTrue else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            throw BatonGtkError.registrationFailed(message)
        }
    }

    /// Runs the application's main loop until it quits; returns its exit status.
    public func run(arguments: [String] = CommandLine.arguments) -> Int32 {
        MainQueueBridge.install()
        var cArguments = arguments.map { strdup($0) }
        defer { cArguments.forEach { free($0) } }
        return g_application_run(baton_gapplication(gtkApplication), Int32(cArguments.count), &cArguments)
    }

    /// Quits the main loop.
    public func quit() {
        g_application_quit(baton_gapplication(gtkApplication))
    }

    func windowDidOpen(_ window: ApplicationWindow) {
        windows.append(window)
    }

    func windowWasDestroyed(_ window: ApplicationWindow) {
        windows.removeAll { $0 === window }
    }

    private func activeWindowDidChange() {
        let active = gtk_application_get_active_window(gtkApplication)
        center.mainWindow = active.flatMap { ApplicationWindow.attached(to: UnsafeMutableRawPointer($0)) }
    }
}

/// Errors of the GTK layer.
public enum BatonGtkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The application could not register with the session.
    case registrationFailed(String)

    public var description: String {
        switch self {
        case .registrationFailed(let message): return "the application could not register: \(message)"
        }
    }
}
