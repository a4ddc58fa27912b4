import Foundation
import Glibc
import Logging

/// The clipboard of a Wayland session, through batond's own connection to the compositor and
/// its data-control protocol (wlroots compositors such as sway offer it; GNOME's mutter does
/// not, and there is no clipboard then): the compositor says when an app copied and what
/// types it offers, reads come through pipes, and a promise is a data source of this device's
/// own, whose content is fetched when an app pastes.
///
/// Before a promise takes the clipboard, what it held is kept (``KeptClipboard``), and
/// ``withdraw()`` hands that out again, as
/// ``X11Clipboard`` does. Types are named as ``X11ClipboardTargets`` names them: Wayland apps
/// offer X11's names of text too (`UTF8_STRING`, `STRING`; wl-copy, Xwayland). Nothing of the
/// content is logged, only types and sizes.
@MainActor
final class WaylandClipboard: LocalClipboard {
    var onCopied: ((ClipboardContent) -> Void)?
    /// Whether this device holds the clipboard now (for a promise, or what it kept).
    var holdsClipboard: Bool { held != nil }
    /// Whether the compositor is still connected.
    var isConnected: Bool { connection.isOpen }

    /// What this device's source on the clipboard offers: the types, and the content of each.
    private struct Held {
        let source: WaylandDataSource
        let types: [String]
        let content: @MainActor (String) async throws -> [UInt8]
    }

    private let connection: WaylandDataControlConnection
    private let timeout: Double
    private let logger: Logger
    /// Counts promises, withdrawals and copies: a promise still keeping what the clipboard
    /// held does not take it once a newer one counted.
    private var generation = 0
    /// Counts other apps' copies: a read or report that spans one is stale.
    private var copies = 0
    /// What the clipboard held before the promise, by type.
    private var kept = KeptClipboard()
    /// Whether promises offer ``ClipboardContent/promiseMarker`` too; off only where this
    /// clipboard stands for an ordinary app (a test's password manager).
    var marksPromises = true
    /// This device's source the clipboard holds.
    private var held: Held?
    /// The selections this device made that the compositor has not reported back yet, oldest
    /// first: a source, or `nil` for emptying the clipboard. The compositor reports every new
    /// selection, this device's own too, in the order it took them; the offer that comes back
    /// offers the source's types, in its order, which is how it is told apart (a source the
    /// compositor cancelled is no longer waited for). An app copying the very same types in
    /// the instant between this device's request and the compositor taking it would be taken
    /// for this device's own, and is replaced by it at once anyway.
    private var ownSelections: [WaylandDataSource?] = []

    /// Connects to the Wayland compositor `display` (`nil`: `WAYLAND_DISPLAY`; a name in
    /// `XDG_RUNTIME_DIR`, or a socket's path) and watches its clipboard.
    ///
    /// - Parameter timeout: how long an app may take to answer one step of a read or a paste.
    /// - Throws: ``ClipboardError/unavailable(_:)`` when there is no such compositor or it
    ///   does not offer the data-control protocol.
    init(display: String?, timeout: Double = 5, logger: Logger = Logger(label: "batond.clipboard")) throws {
        // An app pasting may close its pipe before everything was written: the write then
        // fails (EPIPE) rather than ending the process.
        signal(SIGPIPE, SIG_IGN)
        connection = try WaylandDataControlConnection(display: display)
        self.timeout = timeout
        self.logger = logger
        connection.onSelection = { [weak self] offer in self?.selectionChanged(to: offer) }
        connection.onLost = { [weak self] in
            self?.logger.notice("the Wayland compositor went away: the clipboard is no longer watched")
            self?.held = nil
            self?.ownSelections = []
        }
    }

    // MARK: LocalClipboard

    func read(_ type: String, limit: Int) async throws -> [UInt8] {
        try await read(type, limit: limit, timeout: timeout)
    }

    private func read(_ type: String, limit: Int, timeout: Double) async throws -> [UInt8] {
        guard connection.isOpen else { throw ClipboardError.unavailable("the Wayland compositor went away") }
        if let held {
            guard let answering = X11ClipboardTargets.type(answering: type, among: held.types) else {
                throw ClipboardError.typeNotOffered(type)
            }
            let bytes = try await held.content(answering)
            guard bytes.count <= limit else { throw ClipboardError.tooLarge(limit: limit) }
            return bytes
        }
        let before = copies
        guard let offer = connection.selection,
              let target = X11ClipboardTargets.targets(toRead: type, offered: offer.types).first
        else { throw ClipboardError.typeNotOffered(type) }
        guard let fd = connection.receive(offer, as: target) else { throw ClipboardError.changed }
        let started = Date()
        var bytes = try await WaylandPipeTransfer.read(fd, limit: limit, timeout: timeout)
        guard copies == before else { throw ClipboardError.changed }
        if type.lowercased() == X11ClipboardTargets.utf8Text, target == "STRING" {
            bytes = X11ClipboardTargets.utf8(fromLatin1: bytes)
            guard bytes.count <= limit else { throw ClipboardError.tooLarge(limit: limit) }
        }
        logger.debug("read \(bytes.count) bytes of \(type) (as \(target)) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        return bytes
    }

    func promise(_ types: [String], provide: @escaping @MainActor (String) async throws -> [UInt8]) {
        generation += 1
        let mine = generation
        let holding = held != nil
        Task { @MainActor in
            if !holding { await keepWhatTheClipboardHolds() }
            guard generation == mine else { return }
            take(types, marked: marksPromises, content: KeptClipboard.onceEachType(provide))
            if held != nil { logger.info("holding the clipboard for a promise of \(types.joined(separator: ", "))") }
        }
    }

    func withdraw() {
        generation += 1
        guard held != nil, connection.isOpen else { return }
        if kept.types.isEmpty {
            held = nil
            ownSelections.append(nil)
            connection.setSelection(nil)
            logger.info("the promise ended; the clipboard held nothing to give back")
        } else {
            let kept = kept
            take(kept.types, marked: false) { type in try kept.bytes(of: type) }
            logger.info("the promise ended; the clipboard holds again what it held (\(kept.types.joined(separator: ", ")))")
        }
    }

    func stop() {
        generation += 1
        // Closing the connection ends this device's source, and the clipboard with it.
        held = nil
        ownSelections = []
        kept = KeptClipboard()
        connection.close()
    }

    // MARK: Copies

    /// The compositor says the clipboard holds `offer` now: this device's own selection coming
    /// back, or another app's copy (or the clipboard emptied: `nil`), which is reported.
    private func selectionChanged(to offer: WaylandDataOffer?) {
        if let own = ownSelections.first, own?.types == offer?.types {
            ownSelections.removeFirst()
            return
        }
        copies += 1
        generation += 1
        kept = KeptClipboard()
        guard let offer else { return }
        let copy = copies
        Task { @MainActor in
            let content = await content(of: offer, timeout: timeout)
            guard copies == copy else { return }
            logger.debug("an app copied \(content.types.joined(separator: ", "))\(content.isSecret ? " (secret)" : "")")
            onCopied?(content)
        }
    }

    /// The types `offer` offers, and whether a password manager marked them secret.
    private func content(of offer: WaylandDataOffer, timeout: Double) async -> ClipboardContent {
        var isSecret = false
        for hint in X11ClipboardTargets.secretHints where offer.types.contains(hint.target) {
            guard let secretValue = hint.secretValue else {
                isSecret = true
                break
            }
            guard let fd = connection.receive(offer, as: hint.target) else { continue }
            if let value = try? await WaylandPipeTransfer.read(fd, limit: 256, timeout: timeout),
               X11ClipboardTargets.marksSecret(value, as: secretValue) {
                isSecret = true
                break
            }
        }
        return ClipboardContent(types: X11ClipboardTargets.types(amongTargets: offer.types), isSecret: isSecret,
                                isPromise: offer.types.contains(ClipboardContent.promiseMarker))
    }

    // MARK: Promises

    /// Keeps what another app's clipboard holds, its text and image types, for
    /// ``withdraw()``; nothing when a password manager marked it secret.
    private func keepWhatTheClipboardHolds() async {
        kept = KeptClipboard()
        guard let offer = connection.selection else { return }
        let deadline = Date().addingTimeInterval(KeptClipboard.time)
        let step = min(timeout, KeptClipboard.time)
        let content = await content(of: offer, timeout: step)
        kept = await KeptClipboard.keep(content, until: deadline, step: step) { try await read($0, limit: $1, timeout: $2) }
        logger.debug("kept what the clipboard held (\(kept.types.joined(separator: ", ")))")
    }

    /// Takes the clipboard with a source of this device's offering `types` (and the names of
    /// text other apps ask for, when UTF-8 text is among them), each type's content from
    /// `content` when an app pastes it.
    private func take(_ types: [String], marked: Bool, content: @escaping @MainActor (String) async throws -> [UInt8]) {
        // Each once, as the compositor describes the source back (which tells it apart from
        // other apps' copies), and no name C would cut short.
        var offered: [String] = []
        for type in X11ClipboardTargets.targets(offering: types, marked: marked) where !offered.contains(type) && !type.contains("\0")
            && type != "TARGETS" && type != "TIMESTAMP" && offered.count < WaylandDataOffer.typeLimit {
            offered.append(type)
        }
        guard let source = connection.makeSource(offering: offered) else {
            return logger.notice("could not take the clipboard: the Wayland compositor went away")
        }
        let taken = Held(source: source, types: types, content: content)
        source.onSend = { [weak self] target, fd in
            guard let self else {
                _ = close(fd)
                return
            }
            send(target, of: taken, to: fd)
        }
        source.onEnded = { [weak self, weak source] in
            guard let self else { return }
            ownSelections.removeAll { $0 != nil && $0 === source }
            if held?.source === source { held = nil }
        }
        held = taken
        ownSelections.append(source)
        connection.setSelection(source)
    }

    /// Writes what an app pasting `target` asked for into its pipe `fd`: the content of the
    /// type that answers it (UTF-8 text as ISO 8859-1 for `STRING`).
    private func send(_ target: String, of taken: Held, to fd: Int32) {
        if target == ClipboardContent.promiseMarker {
            _ = close(fd)
            return
        }
        guard let type = X11ClipboardTargets.type(answering: target, among: taken.types) else {
            _ = close(fd)
            return
        }
        Task { @MainActor in
            let bytes: [UInt8]
            do {
                bytes = try await taken.content(type)
            } catch {
                logger.info("a paste of \(type) stays empty: \(error)")
                _ = close(fd)
                return
            }
            let started = Date()
            let written = await WaylandPipeTransfer.write(target == "STRING" ? X11ClipboardTargets.latin1(fromUTF8: bytes) : bytes,
                                                          to: fd, timeout: timeout)
            logger.debug("\(written ? "pasted" : "a paste ended early:") \(bytes.count) bytes of \(target) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        }
    }
}
