import BatonGLib
import CGLib
import CWayland
import CWaylandProtocols
import Foundation

/// The clipboard's own connection to a Wayland compositor, through its data-control protocol
/// (`zwlr_data_control_manager_v1`, which wlroots compositors such as sway offer to any
/// client): the seat's data-control device says what the clipboard holds now (an offer) each
/// time it changes, and sources of this device's own take it.
///
/// Events are read from the GLib main loop when the socket has some (libwayland's
/// prepare-read, read, dispatch), never by blocking, except for the two round trips of
/// ``init(display:)``. A lost compositor makes ``isOpen`` false and runs ``onLost`` once.
@MainActor
final class WaylandDataControlConnection {
    /// Runs for each new selection (`nil`: the clipboard was emptied), the primary selection
    /// aside.
    var onSelection: (WaylandDataOffer?) -> Void = { _ in }
    /// Runs once when the compositor or the seat goes away.
    var onLost: () -> Void = {}
    /// What the clipboard holds now, as the compositor last said.
    private(set) var selection: WaylandDataOffer?
    /// Whether the connection is usable.
    var isOpen: Bool { display != nil }

    private var display: OpaquePointer?
    private var registry: OpaquePointer?
    private var seat: OpaquePointer?
    private var manager: OpaquePointer?
    private var device: OpaquePointer?
    /// Offers introduced and not yet destroyed, by their proxy.
    private var offers: [OpaquePointer: WaylandDataOffer] = [:]
    /// This device's sources the compositor may still ask for content, by their proxy.
    private var sources: [OpaquePointer: WaylandDataSource] = [:]
    private var watch: guint = 0
    private var flushWatch: guint = 0
    /// Whether libwayland was told this connection intends to read (prepare-read).
    private var preparedToRead = false
    /// Whether events are being dispatched: a close then waits for the dispatch to end.
    private var dispatching = false
    private var closeAfterDispatch = false

    /// Connects to the compositor `name` (`nil`: `WAYLAND_DISPLAY`; a name is looked for in
    /// `XDG_RUNTIME_DIR`, a path is used as it is), and binds its data-control manager for the
    /// first seat.
    ///
    /// - Throws: ``ClipboardError/unavailable(_:)`` when there is no such compositor, or it
    ///   does not offer the data-control protocol (GNOME's mutter does not), or has no seat.
    init(display name: String?) throws {
        let environment = ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] ?? ""
        guard name?.isEmpty == false || !environment.isEmpty else {
            throw ClipboardError.unavailable("there is no Wayland session (WAYLAND_DISPLAY is not set)")
        }
        guard let opened = wl_display_connect(name) else {
            throw ClipboardError.unavailable("cannot connect to the Wayland compositor \(name ?? environment)")
        }
        display = opened
        let me = Unmanaged.passUnretained(self).toOpaque()
        registry = wl_display_get_registry(opened)
        wl_registry_add_listener(registry, Self.registryListener, me)
        guard wl_display_roundtrip(opened) >= 0 else {
            disconnect()
            throw ClipboardError.unavailable("the Wayland compositor \(name ?? environment) closed the connection")
        }
        guard let manager else {
            disconnect()
            throw ClipboardError.unavailable(
                "this Wayland compositor does not let background programs use the clipboard (it offers no data-control protocol)")
        }
        guard let seat else {
            disconnect()
            throw ClipboardError.unavailable("the Wayland compositor has no seat, so no clipboard")
        }
        device = zwlr_data_control_manager_v1_get_data_device(manager, seat)
        zwlr_data_control_device_v1_add_listener(device, Self.deviceListener, me)
        // The compositor says what the clipboard holds at once: that is the start, not a copy.
        guard wl_display_roundtrip(opened) >= 0 else {
            disconnect()
            throw ClipboardError.unavailable("the Wayland compositor \(name ?? environment) closed the connection")
        }
        waitForEvents()
    }

    /// Closes the connection: this device's sources end, and the compositor forgets them.
    func close() {
        if dispatching {
            closeAfterDispatch = true
            return
        }
        disconnect()
    }

    private func disconnect() {
        GLibSources.cancel(watch)
        GLibSources.cancel(flushWatch)
        watch = 0
        flushWatch = 0
        guard let display else { return }
        if preparedToRead { wl_display_cancel_read(display) }
        preparedToRead = false
        for source in sources.values { source.ended() }
        sources = [:]
        offers = [:]
        selection = nil
        // Disconnecting frees every proxy of the connection.
        wl_display_disconnect(display)
        self.display = nil
        registry = nil
        seat = nil
        manager = nil
        device = nil
    }

    // MARK: Requests

    /// A source of this device offering `types`, not yet the selection.
    func makeSource(offering types: [String]) -> WaylandDataSource? {
        guard let manager, let proxy = zwlr_data_control_manager_v1_create_data_source(manager) else { return nil }
        zwlr_data_control_source_v1_add_listener(proxy, Self.sourceListener, Unmanaged.passUnretained(self).toOpaque())
        for type in types { zwlr_data_control_source_v1_offer(proxy, type) }
        let source = WaylandDataSource(proxy: proxy, types: types)
        sources[proxy] = source
        return source
    }

    /// Makes `source` the clipboard's content, or empties the clipboard (`nil`). A source
    /// that was the content before is cancelled by the compositor.
    func setSelection(_ source: WaylandDataSource?) {
        guard let device else { return }
        zwlr_data_control_device_v1_set_selection(device, source?.proxy)
        flush()
    }

    /// Asks the app holding `offer` to write it as `type` into a pipe, and returns the pipe's
    /// end to read it from (non-blocking); `nil` when no pipe could be made.
    func receive(_ offer: WaylandDataOffer, as type: String) -> Int32? {
        guard isOpen, let proxy = offer.proxy else { return nil }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        zwlr_data_control_offer_v1_receive(proxy, type, ends[1])
        // libwayland sent a copy of the writing end; this one is not needed.
        _ = Glibc.close(ends[1])
        flush()
        return ends[0]
    }

    /// Sends what libwayland buffered; when the socket is full, the rest once it takes more.
    func flush() {
        guard let display, flushWatch == 0 else { return }
        if wl_display_flush(display) < 0 {
            guard errno == EAGAIN else { return connectionLost() }
            flushWatch = GLibSources.once(when: wl_display_get_fd(display), is: G_IO_OUT) { [weak self] in
                self?.flushWatch = 0
                self?.flush()
            }
        }
    }

    // MARK: Events

    /// Dispatches what is queued, then waits, from the main loop, for the socket to have more.
    private func waitForEvents() {
        guard let display else { return }
        while wl_display_prepare_read(display) != 0 {
            guard dispatchPending() else { return }
        }
        preparedToRead = true
        flush()
        guard self.display != nil else { return }
        watch = GLibSources.once(when: wl_display_get_fd(display), is: G_IO_IN) { [weak self] in
            guard let self, let display = self.display else { return }
            watch = 0
            preparedToRead = false
            guard wl_display_read_events(display) >= 0 else { return connectionLost() }
            guard dispatchPending() else { return }
            waitForEvents()
        }
    }

    /// Runs the handlers of the events read; `false` when the connection ended meanwhile.
    private func dispatchPending() -> Bool {
        guard let display else { return false }
        dispatching = true
        let result = wl_display_dispatch_pending(display)
        dispatching = false
        if closeAfterDispatch {
            closeAfterDispatch = false
            disconnect()
            return false
        }
        guard result >= 0, self.display != nil else {
            connectionLost()
            return false
        }
        return true
    }

    private func connectionLost() {
        guard display != nil else { return }
        if dispatching {
            closeAfterDispatch = true
        } else {
            disconnect()
        }
        onLost()
    }

    fileprivate func global(_ name: UInt32, interface: String, version: UInt32) {
        guard let registry else { return }
        switch interface {
        case "wl_seat" where seat == nil:
            seat = OpaquePointer(wl_registry_bind(registry, name, baton_wl_seat_interface(), 1))
        case "zwlr_data_control_manager_v1" where manager == nil:
            // Version 2 adds the primary selection, which is ignored; version 1 is as good.
            manager = OpaquePointer(wl_registry_bind(registry, name, baton_zwlr_data_control_manager_v1_interface(),
                                                     min(version, 2)))
        default:
            break
        }
    }

    fileprivate func introduce(_ proxy: OpaquePointer) {
        let offer = WaylandDataOffer(proxy: proxy)
        offers[proxy] = offer
        zwlr_data_control_offer_v1_add_listener(proxy, Self.offerListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func offer(_ proxy: OpaquePointer, adds type: String) {
        offers[proxy]?.add(type)
    }

    fileprivate func selectionChanged(to proxy: OpaquePointer?, primary: Bool) {
        let offer = proxy.flatMap { offers[$0] }
        // The primary selection's offers are not wanted: each is let go at once.
        if primary {
            if let offer { destroy(offer) }
            return
        }
        if let previous = selection, previous !== offer { destroy(previous) }
        selection = offer
        onSelection(offer)
    }

    private func destroy(_ offer: WaylandDataOffer) {
        guard let proxy = offer.proxy else { return }
        offers[proxy] = nil
        offer.destroyed()
        zwlr_data_control_offer_v1_destroy(proxy)
    }

    fileprivate func source(_ proxy: OpaquePointer, sends type: String, to fd: Int32) {
        guard let source = sources[proxy] else {
            _ = Glibc.close(fd)
            return
        }
        source.send(type, fd)
    }

    fileprivate func sourceCancelled(_ proxy: OpaquePointer) {
        let source = sources.removeValue(forKey: proxy)
        source?.ended()
        zwlr_data_control_source_v1_destroy(proxy)
        flush()
    }

    /// The seat went away, and its clipboard with it.
    fileprivate func deviceFinished() {
        connectionLost()
    }

    // MARK: Listeners

    /// Runs an event's handler with the connection its user data points to, on the main actor:
    /// libwayland calls handlers from ``dispatchPending()``, run from the main loop.
    nonisolated private static func handle(_ data: UnsafeMutableRawPointer?, _ proxy: OpaquePointer?,
                                           _ body: @MainActor (WaylandDataControlConnection, OpaquePointer?) -> Void) {
        guard let data else { return }
        let connection = Unmanaged<WaylandDataControlConnection>.fromOpaque(data).takeUnretainedValue()
        nonisolated(unsafe) let proxy = proxy
        MainActor.assumeIsolated { body(connection, proxy) }
    }

    nonisolated(unsafe) private static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let interface else { return }
                let text = String(cString: interface)
                handle(data, nil) { connection, _ in connection.global(name, interface: text, version: version) }
            },
            global_remove: { _, _, _ in }))
        return listener
    }()

    nonisolated(unsafe) private static let deviceListener: UnsafeMutablePointer<zwlr_data_control_device_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_data_control_device_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_data_control_device_v1_listener(
            data_offer: { data, _, offer in
                handle(data, offer) { connection, offer in
                    if let offer { connection.introduce(offer) }
                }
            },
            selection: { data, _, offer in
                handle(data, offer) { connection, offer in connection.selectionChanged(to: offer, primary: false) }
            },
            finished: { data, _ in
                handle(data, nil) { connection, _ in connection.deviceFinished() }
            },
            primary_selection: { data, _, offer in
                handle(data, offer) { connection, offer in connection.selectionChanged(to: offer, primary: true) }
            }))
        return listener
    }()

    nonisolated(unsafe) private static let offerListener: UnsafeMutablePointer<zwlr_data_control_offer_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_data_control_offer_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_data_control_offer_v1_listener(
            offer: { data, offer, type in
                guard let type else { return }
                let text = String(cString: type)
                handle(data, offer) { connection, offer in
                    if let offer { connection.offer(offer, adds: text) }
                }
            }))
        return listener
    }()

    nonisolated(unsafe) private static let sourceListener: UnsafeMutablePointer<zwlr_data_control_source_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_data_control_source_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_data_control_source_v1_listener(
            send: { data, source, type, fd in
                guard data != nil, source != nil, let type else {
                    _ = Glibc.close(fd)
                    return
                }
                let text = String(cString: type)
                handle(data, source) { connection, source in
                    if let source { connection.source(source, sends: text, to: fd) }
                }
            },
            cancelled: { data, source in
                handle(data, source) { connection, source in
                    if let source { connection.sourceCancelled(source) }
                }
            }))
        return listener
    }()
}
