import BatonGLib
import CGLib
import CX11
import Foundation

/// The desktop's active window, as an X11 window manager says it (EWMH `_NET_ACTIVE_WINDOW`),
/// and whose it is: its process (`_NET_WM_PID`), its GTK application id
/// (`_GTK_APPLICATION_ID`) and its `WM_CLASS`.
struct ActiveWindow: Equatable, Sendable {
    var pid: Int32?
    var applicationID: String?
    var classNames: [String] = []

    /// Whether the window belongs to the program `program` ("evince", "gedit"): by its
    /// process, its application id's last part (`org.gnome.gedit`) or its class.
    func belongs(to program: String, programOfProcess: (Int32) -> String?) -> Bool {
        let wanted = program.lowercased()
        if let pid, programOfProcess(pid)?.lowercased() == wanted { return true }
        if let last = applicationID?.split(separator: ".").last, last.lowercased() == wanted { return true }
        return classNames.contains { $0.lowercased() == wanted }
    }
}

/// Follows the active window on an X11 display (`DISPLAY`) through its window manager, woken
/// by the root window's `PropertyNotify`, never by a timer. Where there is no X11 display or
/// no EWMH window manager, ``isAvailable`` is false and the recent documents fall back to
/// what was used lately.
///
/// In a Wayland session the X display (Xwayland) is not watched, even when `DISPLAY` names
/// it: it sees only the X clients, so while a Wayland app has the focus it says no window is
/// active (or still names the X window that had it), and gedit or Document Viewer in use
/// would never be offered. There the choice is by recency too.
@MainActor
final class ActiveWindowWatcher {
    private(set) var current: ActiveWindow?
    /// Whether the display says which window is active.
    private(set) var isAvailable = false
    /// Runs when the active window changes.
    var onChange: () -> Void = {}

    private var display: OpaquePointer?
    private var watch: guint = 0
    private var atoms: (active: Atom, pid: Atom, applicationID: Atom, utf8: Atom) = (0, 0, 0, 0)

    /// The X display whose active window says which app is in use, from `environment`: its
    /// `DISPLAY`, unless the session is a Wayland one (`WAYLAND_DISPLAY` set, or
    /// `XDG_SESSION_TYPE=wayland`).
    nonisolated static func displayToWatch(in environment: [String: String]) -> String? {
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty { return nil }
        if environment["XDG_SESSION_TYPE"] == "wayland" { return nil }
        guard let name = environment["DISPLAY"], !name.isEmpty else { return nil }
        return name
    }

    /// Connects to the X display (``displayToWatch(in:)``), if there is one; says nothing and
    /// watches nothing otherwise.
    func start() {
        guard display == nil, let name = Self.displayToWatch(in: ProcessInfo.processInfo.environment) else { return }
        XlibErrorHandlers.install()
        guard let opened = XOpenDisplay(name) else { return }
        // Without this, Xlib ends the process when the display goes away.
        XSetIOErrorExitHandler(opened, { _, _ in ActiveWindowWatcher.connectionLost = true }, nil)
        display = opened
        atoms = (XInternAtom(opened, "_NET_ACTIVE_WINDOW", 0), XInternAtom(opened, "_NET_WM_PID", 0),
                 XInternAtom(opened, "_GTK_APPLICATION_ID", 0), XInternAtom(opened, "UTF8_STRING", 0))
        XSelectInput(opened, baton_x11_root_window(opened), PropertyChangeMask)
        XFlush(opened)
        read()
        waitForEvents()
    }

    /// Closes the connection.
    func stop() {
        GLibSources.cancel(watch)
        watch = 0
        if let display, !Self.connectionLost { XCloseDisplay(display) }
        display = nil
        isAvailable = false
        current = nil
    }

    private func waitForEvents() {
        guard let display else { return }
        watch = GLibSources.once(when: baton_x11_connection_number(display), is: G_IO_IN) { [weak self] in
            self?.eventsArrived()
        }
    }

    private func eventsArrived() {
        watch = 0
        guard let display else { return }
        let before = current
        // Reading the window's properties may pull newer events into Xlib's queue, which the
        // socket no longer shows: they are taken before waiting on it again.
        repeat {
            var changed = false
            var event = XEvent()
            while !Self.connectionLost, XPending(display) > 0 {
                XNextEvent(display, &event)
                if event.type == PropertyNotify, event.xproperty.atom == atoms.active { changed = true }
            }
            if Self.connectionLost { break }
            if changed { read() }
        } while !Self.connectionLost && XEventsQueued(display, QueuedAlready) > 0
        if Self.connectionLost {
            // The connection is unusable: it is dropped without another Xlib call on it.
            self.display = nil
            isAvailable = false
            current = nil
            return onChange()
        }
        if current != before { onChange() }
        waitForEvents()
    }

    private func read() {
        guard let display else { return }
        let root = baton_x11_root_window(display)
        guard let window = Self.windowProperty(display, root, atoms.active) else {
            isAvailable = Self.hasProperty(display, root, atoms.active)
            current = nil
            return
        }
        isAvailable = true
        guard window != 0 else {
            current = nil
            return
        }
        var active = ActiveWindow()
        active.pid = Self.cardinalProperty(display, window, atoms.pid).map { Int32(truncatingIfNeeded: $0) }
        active.applicationID = Self.textProperty(display, window, atoms.applicationID, type: atoms.utf8)
        var hint = XClassHint()
        if XGetClassHint(display, window, &hint) != 0 {
            active.classNames = [hint.res_name, hint.res_class].compactMap { $0.map { String(cString: $0) } }
            if let name = hint.res_name { XFree(name) }
            if let name = hint.res_class { XFree(name) }
        }
        current = active
    }

    // MARK: Xlib

    /// Set by the I/O error handler: the display went away.
    nonisolated(unsafe) private static var connectionLost = false


    private static func property(_ display: OpaquePointer, _ window: Window, _ atom: Atom, type: Atom,
                                 _ body: (UnsafeMutablePointer<UInt8>, Int, Int32) -> Void) {
        var actualType: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0
        var remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard XGetWindowProperty(display, window, atom, 0, 1024, 0, type, &actualType, &format, &count, &remaining,
                                 &data) == Success, let data else { return }
        defer { XFree(data) }
        if actualType == type, count > 0 { body(data, Int(count), format) }
    }

    private static func hasProperty(_ display: OpaquePointer, _ window: Window, _ atom: Atom) -> Bool {
        var found = false
        property(display, window, atom, type: Atom(XA_WINDOW)) { _, _, _ in found = true }
        return found
    }

    private static func windowProperty(_ display: OpaquePointer, _ window: Window, _ atom: Atom) -> Window? {
        var value: Window?
        property(display, window, atom, type: Atom(XA_WINDOW)) { data, _, format in
            // Xlib hands 32-bit properties as longs.
            if format == 32 { value = data.withMemoryRebound(to: UInt.self, capacity: 1) { Window($0.pointee) } }
        }
        return value
    }

    private static func cardinalProperty(_ display: OpaquePointer, _ window: Window, _ atom: Atom) -> UInt? {
        var value: UInt?
        property(display, window, atom, type: Atom(XA_CARDINAL)) { data, _, format in
            if format == 32 { value = data.withMemoryRebound(to: UInt.self, capacity: 1) { $0.pointee } }
        }
        return value
    }

    private static func textProperty(_ display: OpaquePointer, _ window: Window, _ atom: Atom, type: Atom) -> String? {
        var value: String?
        property(display, window, atom, type: type) { data, count, format in
            guard format == 8 else { return }
            let text = String(decoding: UnsafeBufferPointer(start: data, count: min(count, 255)), as: UTF8.self)
            value = text.unicodeScalars.contains { $0.properties.generalCategory == .control } ? nil : text
        }
        return value
    }
}
