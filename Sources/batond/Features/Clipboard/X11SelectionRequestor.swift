import CX11
import Foundation

/// What a selection's owner answered a conversion with: the property's type and its content
/// as sent on the wire (8-, 16- or 32-bit items, the 32-bit ones in 4 bytes each).
struct X11SelectionValue {
    let type: Atom
    let format: Int32
    let bytes: [UInt8]

    /// The content as 32-bit items (atoms, for `TARGETS`).
    var items: [UInt32] {
        guard format == 32 else { return [] }
        return stride(from: 0, to: bytes.count - 3, by: 4).map { offset in
            bytes[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
    }
}

/// Reads a selection as one target (ICCCM's conversion): asks the owner to put it on a
/// property of the clipboard's window, waits for its `SelectionNotify`, then reads the
/// property, or the owner's `INCR` chunks when the content is large, never more than a limit
/// and never waiting longer than a timeout for the next step.
@MainActor
final class X11SelectionRequestor {
    private let connection: X11SelectionConnection
    /// Properties free for a conversion, reused so that atoms do not pile up on the server.
    private var freeProperties: [Atom] = []
    private var propertiesMade = 0
    /// The unwanted `INCR` transfer being taken and dropped, which a new conversion waits for.
    private var draining: Task<Void, Never>?

    init(connection: X11SelectionConnection) {
        self.connection = connection
    }

    /// The owner's content of `selection` as `target`.
    ///
    /// - Throws: ``ClipboardError``: `typeNotOffered` when the owner refuses, `tooLarge` over
    ///   `limit` bytes, `timedOut` when a step takes longer than `timeout` seconds,
    ///   `unavailable` when the display went away.
    func convert(_ selection: Atom, to target: String, limit: Int, timeout: Double) async throws -> X11SelectionValue {
        await draining?.value
        let targetAtom = connection.atom(target)
        guard let display = connection.usableDisplay else { throw Self.lost }
        let property = takeProperty()
        var reusable = false
        defer { if reusable { freeProperties.append(property) } }
        let window = connection.window
        XDeleteProperty(display, window, property)
        XConvertSelection(display, selection, targetAtom, property, window, Time(CurrentTime))
        connection.flush()
        guard let notify = await connection.next(timeout: timeout, matching: { event in
            event.type == SelectionNotify && event.xselection.requestor == window && event.xselection.selection == selection
                && event.xselection.target == targetAtom && (event.xselection.property == property || event.xselection.property == 0)
        }) else {
            throw connection.isOpen ? ClipboardError.timedOut : Self.lost
        }
        guard notify.xselection.property == property else {
            reusable = true
            throw ClipboardError.typeNotOffered(target)
        }
        let head: X11SelectionValue?
        do {
            head = try readProperty(property, limit: limit, delete: false)
        } catch ClipboardError.tooLarge(let limit) {
            XDeleteProperty(display, window, property)
            connection.flush()
            reusable = true
            throw ClipboardError.tooLarge(limit: limit)
        }
        guard let head else { throw ClipboardError.changed }
        if head.type == connection.atom("INCR") {
            return try await readIncrementally(property, limit: limit, timeout: timeout)
        }
        XDeleteProperty(display, window, property)
        connection.flush()
        reusable = true
        return head
    }

    /// Reads an `INCR` transfer: deleting the property asks the owner for the next chunk; a
    /// chunk of no bytes ends it. Over `limit`, the rest is taken and dropped unread
    /// (``drain(_:timeout:)``); when a chunk does not come in time, the property is not used
    /// again (the owner may still write to it).
    private func readIncrementally(_ property: Atom, limit: Int, timeout: Double) async throws -> X11SelectionValue {
        let window = connection.window
        var bytes: [UInt8] = []
        var type: Atom = 0
        var format: Int32 = 8
        guard let display = connection.usableDisplay else { throw Self.lost }
        XDeleteProperty(display, window, property)
        connection.flush()
        while true {
            guard await connection.next(timeout: timeout, matching: { event in
                event.type == PropertyNotify && event.xproperty.window == window && event.xproperty.atom == property
                    && event.xproperty.state == PropertyNewValue
            }) != nil else {
                throw connection.isOpen ? ClipboardError.timedOut : Self.lost
            }
            let read: X11SelectionValue?
            do {
                read = try readProperty(property, limit: limit - bytes.count, delete: true)
            } catch ClipboardError.tooLarge {
                drain(property, timeout: timeout)
                throw ClipboardError.tooLarge(limit: limit)
            }
            guard let chunk = read else { throw ClipboardError.changed }
            if chunk.bytes.isEmpty {
                freeProperties.append(property)
                return X11SelectionValue(type: type, format: format, bytes: bytes)
            }
            if bytes.isEmpty { bytes.reserveCapacity(min(limit, 64 << 20)) }
            bytes += chunk.bytes
            type = chunk.type
            format = chunk.format
        }
    }

    /// Takes the rest of an `INCR` transfer no longer wanted and drops it unread, so that an
    /// owner that answers one request at a time (`xclip`) is free again; the next conversion
    /// waits for it. At most ``drainLimit`` bytes and ``drainTime`` seconds, each chunk
    /// within `timeout`, after which the property is not used again.
    private func drain(_ property: Atom, timeout: Double) {
        let window = connection.window
        let deadline = Date().addingTimeInterval(Self.drainTime)
        draining = Task { @MainActor in
            defer { draining = nil }
            var dropped = 0
            while dropped <= Self.drainLimit, deadline.timeIntervalSinceNow > 0, let display = connection.usableDisplay {
                // Deleting the chunk asks for the next; the wait for it starts before any
                // event is read.
                XDeleteProperty(display, window, property)
                connection.flush()
                guard await connection.next(timeout: min(timeout, max(0, deadline.timeIntervalSinceNow)), matching: { event in
                    event.type == PropertyNotify && event.xproperty.window == window && event.xproperty.atom == property
                        && event.xproperty.state == PropertyNewValue
                }) != nil, let display = connection.usableDisplay else { return }
                var type: Atom = 0
                var format: Int32 = 0
                var count: UInt = 0
                var remaining: UInt = 0
                var data: UnsafeMutablePointer<UInt8>?
                guard XGetWindowProperty(display, window, property, 0, 0, 0, Atom(AnyPropertyType), &type, &format,
                                         &count, &remaining, &data) == Success else { return }
                if let data { XFree(data) }
                if remaining == 0 {
                    XDeleteProperty(display, window, property)
                    connection.flush()
                    return freeProperties.append(property)
                }
                dropped += Int(remaining)
            }
        }
    }

    /// The most bytes of an unwanted `INCR` transfer taken and dropped.
    static let drainLimit = 256 << 20
    /// The longest an unwanted `INCR` transfer is taken and dropped, in seconds.
    static let drainTime = 10.0

    /// The property's value, whole (deleted with `delete`); `nil` when it is gone.
    ///
    /// - Throws: `tooLarge` when it is over `limit` bytes, before reading or deleting it.
    private func readProperty(_ property: Atom, limit: Int, delete: Bool) throws -> X11SelectionValue? {
        guard let display = connection.usableDisplay else { throw Self.lost }
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0
        var remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        // First only the type and the size.
        guard XGetWindowProperty(display, connection.window, property, 0, 0, 0, Atom(AnyPropertyType), &type, &format,
                                 &count, &remaining, &data) == Success else { throw Self.lost }
        if let data { XFree(data) }
        guard type != 0 else { return nil }
        let size = Int(remaining)
        if size > limit {
            throw ClipboardError.tooLarge(limit: max(limit, 0))
        }
        data = nil
        guard XGetWindowProperty(display, connection.window, property, 0, (size + 3) / 4, delete ? 1 : 0,
                                 Atom(AnyPropertyType), &type, &format, &count, &remaining, &data) == Success
        else { throw Self.lost }
        defer { if let data { XFree(data) } }
        connection.flush()
        guard type != 0 else { return nil }
        guard let data, count > 0 else { return X11SelectionValue(type: type, format: format, bytes: []) }
        let items = Int(count)
        switch format {
        case 8:
            return X11SelectionValue(type: type, format: 8, bytes: Array(UnsafeBufferPointer(start: data, count: items)))
        case 16:
            let shorts = data.withMemoryRebound(to: UInt16.self, capacity: items) { Array(UnsafeBufferPointer(start: $0, count: items)) }
            return X11SelectionValue(type: type, format: 16, bytes: shorts.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        case 32:
            // Xlib hands 32-bit items as longs.
            let longs = data.withMemoryRebound(to: UInt.self, capacity: items) { Array(UnsafeBufferPointer(start: $0, count: items)) }
            return X11SelectionValue(type: type, format: 32, bytes: longs.flatMap { long in
                (0..<4).map { UInt8(truncatingIfNeeded: long >> ($0 * 8)) }
            })
        default:
            return nil
        }
    }

    private func takeProperty() -> Atom {
        if let free = freeProperties.popLast() { return free }
        propertiesMade += 1
        return connection.atom("_BATON_CLIPBOARD_\(propertiesMade)")
    }

    private static let lost = ClipboardError.unavailable("the X display went away")
}
