import CX11
import Foundation

/// What this device offers while it owns the `CLIPBOARD` selection: the targets, and the
/// content of each, fetched when an app asks for it.
struct X11SelectionOffer {
    /// The targets offered (MIME types and X11's text targets), without `TARGETS` and
    /// `TIMESTAMP`, which are always answered.
    let targets: [String]
    /// The content for one of ``targets``, and the type to hand it as.
    let content: @MainActor (String) async throws -> (type: String, bytes: [UInt8])
    /// The server time the selection was taken at.
    let since: Time
}

/// Answers other apps' requests for the selection this device owns (ICCCM's owner side):
/// `TARGETS`, `TIMESTAMP` and each offered target, the content handed over once it arrived
/// (the requestor waits meanwhile), in `INCR` chunks when it is over what one request may
/// carry. `MULTIPLE` and anything not offered are refused, as is a target whose content
/// could not be had.
@MainActor
final class X11SelectionOwner {
    /// What is offered, while this device owns the selection.
    var offer: X11SelectionOffer?
    /// How long a requestor may take to take an `INCR` chunk before the transfer is dropped.
    var timeout: Double
    /// Content over this many bytes goes in `INCR` chunks of this size.
    let chunkSize: Int

    private let connection: X11SelectionConnection
    /// The `INCR` transfers under way to each requestor window, whose property changes this
    /// connection listens to meanwhile.
    private var transfers: [Window: Int] = [:]

    /// How many `INCR` transfers are under way.
    var transfersUnderway: Int { transfers.values.reduce(0, +) }

    init(connection: X11SelectionConnection, timeout: Double) {
        self.connection = connection
        self.timeout = timeout
        // A ChangeProperty request without the BIG-REQUESTS extension, less its header.
        let maxRequest = connection.usableDisplay.map { Int(XMaxRequestSize($0)) * 4 } ?? 262_140
        chunkSize = max(4096, min(maxRequest - 1024, 256 << 10))
    }

    /// Answers one `SelectionRequest`.
    func answer(_ request: XSelectionRequestEvent) {
        // An obsolete requestor names no property: the target's name is used.
        let property = request.property != 0 ? request.property : request.target
        guard let offer, request.selection == connection.clipboard, request.owner == connection.window,
              request.time == Time(CurrentTime) || request.time >= offer.since,
              let target = connection.name(of: request.target)
        else { return notify(request, property: 0) }
        switch target {
        case "TARGETS":
            let atoms = (offer.targets + ["TARGETS", "TIMESTAMP"]).map { connection.atom($0) }
            write(atoms.map(UInt.init), as: Atom(XA_ATOM), to: request.requestor, property)
            notify(request, property: property)
        case "TIMESTAMP":
            write([UInt(offer.since)], as: Atom(XA_INTEGER), to: request.requestor, property)
            notify(request, property: property)
        case _ where offer.targets.contains(target):
            let since = offer.since
            Task { @MainActor in
                do {
                    let content = try await offer.content(target)
                    guard self.offer?.since == since else { return self.notify(request, property: 0) }
                    await self.send(content.bytes, as: self.connection.atom(content.type), for: request, property)
                } catch {
                    self.notify(request, property: 0)
                }
            }
        default:
            notify(request, property: 0)
        }
    }

    /// Hands `bytes` over: on the property at once, or in `INCR` chunks, each written when
    /// the requestor deleted the last; a requestor that goes away or stops taking them ends
    /// the transfer.
    private func send(_ bytes: [UInt8], as type: Atom, for request: XSelectionRequestEvent, _ property: Atom) async {
        guard let display = connection.usableDisplay else { return }
        let requestor = request.requestor
        guard bytes.count > chunkSize else {
            _ = bytes.withUnsafeBufferPointer { buffer in
                XChangeProperty(display, requestor, property, type, 8, PropModeReplace, buffer.baseAddress, Int32(buffer.count))
            }
            return notify(request, property: property)
        }
        startListening(to: requestor)
        defer { stopListening(to: requestor) }
        write([UInt(bytes.count)], as: connection.atom("INCR"), to: requestor, property)
        notify(request, property: property)
        var offset = 0
        while true {
            guard await connection.next(timeout: timeout, matching: { event in
                (event.type == PropertyNotify && event.xproperty.window == requestor && event.xproperty.atom == property
                    && event.xproperty.state == PropertyDelete)
                    || (event.type == DestroyNotify && event.xdestroywindow.window == requestor)
            }).map({ $0.type == PropertyNotify }) == true, let display = connection.usableDisplay else { return }
            let end = min(offset + chunkSize, bytes.count)
            _ = bytes[offset..<end].withUnsafeBufferPointer { buffer in
                XChangeProperty(display, requestor, property, type, 8, PropModeReplace, buffer.baseAddress, Int32(buffer.count))
            }
            connection.flush()
            // The chunk of no bytes, after the last, ends the transfer.
            if offset == bytes.count { return }
            offset = end
        }
    }

    private func write(_ items: [UInt], as type: Atom, to window: Window, _ property: Atom) {
        guard let display = connection.usableDisplay else { return }
        _ = items.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt8.self) { bytes in
                XChangeProperty(display, window, property, type, 32, PropModeReplace, bytes.baseAddress, Int32(items.count))
            }
        }
    }

    /// Tells the requestor its answer is on `property`, or that there is none (`0`).
    private func notify(_ request: XSelectionRequestEvent, property: Atom) {
        guard let display = connection.usableDisplay else { return }
        var event = XEvent()
        event.xselection = XSelectionEvent(type: SelectionNotify, serial: 0, send_event: 1, display: display,
                                           requestor: request.requestor, selection: request.selection,
                                           target: request.target, property: property, time: request.time)
        XSendEvent(display, request.requestor, 0, 0, &event)
        connection.flush()
    }

    private func startListening(to requestor: Window) {
        transfers[requestor, default: 0] += 1
        guard transfers[requestor] == 1, let display = connection.usableDisplay else { return }
        XSelectInput(display, requestor, PropertyChangeMask | StructureNotifyMask)
    }

    private func stopListening(to requestor: Window) {
        transfers[requestor, default: 1] -= 1
        guard transfers[requestor] == 0 else { return }
        transfers[requestor] = nil
        guard let display = connection.usableDisplay else { return }
        XSelectInput(display, requestor, NoEventMask)
        connection.flush()
    }
}
