import BatonGLib
import CGLib
import CX11
import Foundation

/// The clipboard's own connection to an X display: a small window that is never shown (the
/// requestor of conversions and the owner of promises), XFixes notifications of the
/// `CLIPBOARD` selection's new owners, and the connection's events read from the GLib main
/// loop, never by blocking.
///
/// An event is handed to the first ``next(timeout:matching:)`` waiting for one like it, else
/// to ``onEvent``. A lost display ends every wait (with `nil`) and makes ``isOpen`` false; Xlib
/// never ends the process.
@MainActor
final class X11SelectionConnection {
    /// Runs for each event no waiter took.
    var onEvent: (XEvent) -> Void = { _ in }
    /// Runs once when the display goes away.
    var onLost: () -> Void = {}
    /// The window conversions are made to and promises are owned by.
    let window: Window
    /// The `CLIPBOARD` selection.
    let clipboard: Atom
    /// The event type of XFixes' selection notifications on this display.
    let selectionNotifyType: Int32
    /// Whether the connection is usable.
    var isOpen: Bool { display != nil }

    private var display: OpaquePointer?
    private var watch: guint = 0
    private var drainScheduled: guint = 0
    private var atoms: [String: Atom] = [:]
    private var names: [Atom: String] = [:]
    private var waiters: [Waiter] = []
    private var nextWaiterID = 0

    private struct Waiter {
        let id: Int
        let matches: (XEvent) -> Bool
        let continuation: CheckedContinuation<XEvent?, Never>
        let timer: guint
    }

    /// Connects to the display `name` (`nil`: `DISPLAY`).
    ///
    /// - Throws: ``ClipboardError/unavailable(_:)`` when there is no such display or it lacks
    ///   the XFixes extension.
    init(display name: String?) throws {
        XlibErrorHandlers.install()
        guard let opened = XOpenDisplay(name) else {
            throw ClipboardError.unavailable("cannot connect to the X display \(name ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? "(none)")")
        }
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        guard XFixesQueryExtension(opened, &eventBase, &errorBase) != 0 else {
            XCloseDisplay(opened)
            throw ClipboardError.unavailable("the X display lacks the XFixes extension")
        }
        // Without this, Xlib ends the process when the display goes away.
        XSetIOErrorExitHandler(opened, { display, _ in X11SelectionConnection.noteLost(display) }, nil)
        display = opened
        selectionNotifyType = eventBase + XFixesSelectionNotify
        let root = baton_x11_root_window(opened)
        window = XCreateSimpleWindow(opened, root, -10, -10, 1, 1, 0, 0, 0)
        clipboard = XInternAtom(opened, "CLIPBOARD", 0)
        XSelectInput(opened, window, PropertyChangeMask)
        XFixesSelectSelectionInput(opened, root, clipboard, UInt(XFixesSetSelectionOwnerNotifyMask)
            | UInt(XFixesSelectionWindowDestroyNotifyMask) | UInt(XFixesSelectionClientCloseNotifyMask))
        flush()
        waitForEvents()
    }

    /// Closes the connection; waiters get `nil`.
    func close() {
        GLibSources.cancel(watch)
        GLibSources.cancel(drainScheduled)
        watch = 0
        drainScheduled = 0
        if let display, !Self.isLost(display) {
            XDestroyWindow(display, window)
            XCloseDisplay(display)
        }
        display = nil
        endWaits()
    }

    // MARK: Requests

    /// The display, while the connection is usable.
    var usableDisplay: OpaquePointer? {
        guard let display, !Self.isLost(display) else { return nil }
        return display
    }

    /// The atom named `name`, created if new.
    func atom(_ name: String) -> Atom {
        if let known = atoms[name] { return known }
        guard let display = usableDisplay else { return 0 }
        let atom = XInternAtom(display, name, 0)
        atoms[name] = atom
        names[atom] = name
        afterRoundTrip()
        return atom
    }

    /// The name of `atom`, or `nil` for None or an atom the server does not know.
    func name(of atom: Atom) -> String? {
        guard atom != 0 else { return nil }
        if let known = names[atom] { return known }
        guard let display = usableDisplay, let name = XGetAtomName(display, atom) else { return nil }
        defer { XFree(name) }
        let text = String(cString: name)
        afterRoundTrip()
        names[atom] = text
        atoms[text] = atom
        return text
    }

    /// Sends what Xlib buffered, and reads events a round trip may have queued.
    func flush() {
        guard let display = usableDisplay else { return connectionLost() }
        XFlush(display)
        afterRoundTrip()
    }

    /// The server's time now, read from the `PropertyNotify` of an empty change to the window
    /// (selection ownership wants a real time, not `CurrentTime`); `CurrentTime` when none
    /// comes.
    func serverTime() async -> Time {
        guard let display = usableDisplay else { return Time(CurrentTime) }
        let property = atom("_BATON_CLIPBOARD_TIME")
        var nothing: UInt8 = 0
        XChangeProperty(display, window, property, Atom(XA_INTEGER), 8, PropModeAppend, &nothing, 0)
        flush()
        let window = window
        let event = await next(timeout: 2) { event in
            event.type == PropertyNotify && event.xproperty.window == window && event.xproperty.atom == property
        }
        return event?.xproperty.time ?? Time(CurrentTime)
    }

    /// Waits for the next event that `matches`, for up to `timeout` seconds; `nil` when none
    /// came or the display went away.
    func next(timeout: Double, matching matches: @escaping (XEvent) -> Bool) async -> XEvent? {
        guard isOpen else { return nil }
        nextWaiterID += 1
        let id = nextWaiterID
        return await withCheckedContinuation { continuation in
            let timer = GLibSources.once(after: timeout) { [weak self] in self?.endWait(id, with: nil) }
            waiters.append(Waiter(id: id, matches: matches, continuation: continuation, timer: timer))
        }
    }

    private func endWait(_ id: Int, with event: XEvent?) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiters.remove(at: index)
        GLibSources.cancel(waiter.timer)
        waiter.continuation.resume(returning: event)
    }

    private func endWaits() {
        for waiter in waiters { endWait(waiter.id, with: nil) }
    }

    // MARK: Events

    private func waitForEvents() {
        guard let display = usableDisplay else { return }
        watch = GLibSources.once(when: baton_x11_connection_number(display), is: G_IO_IN) { [weak self] in
            guard let self else { return }
            watch = 0
            drain()
            if isOpen { waitForEvents() }
        }
    }

    /// A round trip may have read events into Xlib's queue, which the socket no longer
    /// shows: they are taken soon, from the main loop.
    private func afterRoundTrip() {
        guard let display = usableDisplay else { return }
        if XEventsQueued(display, QueuedAlready) > 0, drainScheduled == 0 {
            drainScheduled = GLibSources.once(after: 0) { [weak self] in
                self?.drainScheduled = 0
                self?.drain()
            }
        }
    }

    private func drain() {
        var event = XEvent()
        while let display = usableDisplay, XPending(display) > 0 {
            XNextEvent(display, &event)
            dispatch(event)
        }
        if let display, Self.isLost(display) { connectionLost() }
    }

    private func dispatch(_ event: XEvent) {
        if let waiter = waiters.first(where: { $0.matches(event) }) {
            endWait(waiter.id, with: event)
        } else {
            onEvent(event)
        }
    }

    private func connectionLost() {
        guard display != nil else { return }
        // The connection is unusable: it is dropped without another Xlib call on it.
        display = nil
        GLibSources.cancel(watch)
        watch = 0
        endWaits()
        onLost()
    }

    // MARK: Xlib's handlers

    /// The displays whose connection broke (by address), set from Xlib's I/O error handling.
    nonisolated(unsafe) private static var lostDisplays: Set<UInt> = []

    nonisolated private static func noteLost(_ display: OpaquePointer?) {
        if let display { lostDisplays.insert(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(display)))) }
    }

    private static func isLost(_ display: OpaquePointer) -> Bool {
        lostDisplays.contains(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(display))))
    }
}
