import CX11
import Foundation
import Logging

/// The clipboard of an X11 session (the `CLIPBOARD` selection), through batond's own
/// connection to the display: XFixes says when an app takes the clipboard, conversions read
/// it, and a promise is this device owning the selection and answering pastes itself.
///
/// Before a promise takes the clipboard, what it held is kept (``KeptClipboard``), and
/// ``withdraw()`` hands that out again. Nothing of the content is logged, only types and
/// sizes.
@MainActor
final class X11Clipboard: LocalClipboard {
    var onCopied: ((ClipboardContent) -> Void)?
    /// Whether this device holds the clipboard now (for a promise, or what it kept).
    var holdsClipboard: Bool { owner.offer != nil }
    /// How many pastes are being handed over in `INCR` chunks now.
    var pastesUnderway: Int { owner.transfersUnderway }

    private let connection: X11SelectionConnection
    private let requestor: X11SelectionRequestor
    private let owner: X11SelectionOwner
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

    /// Connects to the X display `display` (`nil`: `DISPLAY`) and watches its clipboard.
    ///
    /// - Parameter timeout: how long an app may take to answer one step of a read or a paste.
    /// - Throws: ``ClipboardError/unavailable(_:)`` when there is no such display or it lacks
    ///   XFixes.
    init(display: String?, timeout: Double = 5, logger: Logger = Logger(label: "batond.clipboard")) throws {
        connection = try X11SelectionConnection(display: display)
        requestor = X11SelectionRequestor(connection: connection)
        owner = X11SelectionOwner(connection: connection, timeout: timeout)
        self.timeout = timeout
        self.logger = logger
        connection.onEvent = { [weak self] event in self?.handle(event) }
        connection.onLost = { [weak self] in
            self?.logger.notice("the X display went away: the clipboard is no longer watched")
            self?.owner.offer = nil
        }
    }

    // MARK: LocalClipboard

    func read(_ type: String, limit: Int) async throws -> [UInt8] {
        try await read(type, limit: limit, timeout: timeout)
    }

    private func read(_ type: String, limit: Int, timeout: Double) async throws -> [UInt8] {
        guard connection.isOpen else { throw ClipboardError.unavailable("the X display went away") }
        if let offer = owner.offer, let target = X11ClipboardTargets.type(answering: type, among: offer.targets) {
            let bytes = try await offer.content(target).bytes
            guard bytes.count <= limit else { throw ClipboardError.tooLarge(limit: limit) }
            return bytes
        }
        let before = copies
        let offered = try await targets(timeout: timeout)
        guard let target = X11ClipboardTargets.targets(toRead: type, offered: offered).first else {
            throw ClipboardError.typeNotOffered(type)
        }
        let started = Date()
        let value = try await requestor.convert(connection.clipboard, to: target, limit: limit, timeout: timeout)
        guard copies == before else { throw ClipboardError.changed }
        var bytes = value.bytes
        if type.lowercased() == X11ClipboardTargets.utf8Text, value.type == connection.atom("STRING") {
            bytes = X11ClipboardTargets.utf8(fromLatin1: bytes)
            guard bytes.count <= limit else { throw ClipboardError.tooLarge(limit: limit) }
        }
        logger.debug("read \(bytes.count) bytes of \(type) (as \(target)) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        return bytes
    }

    func promise(_ types: [String], provide: @escaping @MainActor (String) async throws -> [UInt8]) {
        generation += 1
        let mine = generation
        let held = owner.offer != nil
        Task { @MainActor in
            if !held { await keepWhatTheClipboardHolds() }
            guard generation == mine else { return }
            await take(types, provide: provide, for: mine)
        }
    }

    func withdraw() {
        generation += 1
        guard let offer = owner.offer, let display = connection.usableDisplay else { return }
        if kept.types.isEmpty {
            owner.offer = nil
            // With the time it was taken at: an app that took it since keeps it.
            XSetSelectionOwner(display, connection.clipboard, 0, offer.since)
            connection.flush()
            logger.info("the promise ended; the clipboard held nothing to give back")
        } else {
            let kept = kept
            owner.offer = Self.offer(kept.types, marked: false, since: offer.since) { type in try kept.bytes(of: type) }
            logger.info("the promise ended; the clipboard holds again what it held (\(kept.types.joined(separator: ", ")))")
        }
    }

    func stop() {
        generation += 1
        if let offer = owner.offer, let display = connection.usableDisplay {
            XSetSelectionOwner(display, connection.clipboard, 0, offer.since)
            connection.flush()
        }
        owner.offer = nil
        kept = KeptClipboard()
        connection.close()
    }

    // MARK: Copies

    private func handle(_ event: XEvent) {
        switch event.type {
        case connection.selectionNotifyType:
            let notify = withUnsafePointer(to: event) {
                $0.withMemoryRebound(to: XFixesSelectionNotifyEvent.self, capacity: 1) { $0.pointee }
            }
            guard notify.selection == connection.clipboard, notify.owner != connection.window else { return }
            copied(by: notify.owner)
        case SelectionRequest:
            owner.answer(event.xselectionrequest)
        case SelectionClear where event.xselectionclear.window == connection.window:
            // Another app took the clipboard: its XFixes notification reports the copy.
            owner.offer = nil
        default:
            break
        }
    }

    /// Another app took the clipboard (or its owner went away: `owner` is None): a promise
    /// ends, and the copy's types are reported.
    private func copied(by newOwner: Window) {
        copies += 1
        generation += 1
        owner.offer = nil
        kept = KeptClipboard()
        guard newOwner != 0 else { return }
        let copy = copies
        Task { @MainActor in
            do {
                let content = try await content(timeout: timeout)
                guard copies == copy else { return }
                logger.debug("an app copied \(content.types.joined(separator: ", "))\(content.isSecret ? " (secret)" : "")")
                onCopied?(content)
            } catch {
                logger.info("an app copied, but its clipboard could not be read: \(error)")
            }
        }
    }

    /// The clipboard's types now, and whether a password manager marked them secret.
    private func content(timeout: Double) async throws -> ClipboardContent {
        let offered = try await targets(timeout: timeout)
        var isSecret = false
        for hint in X11ClipboardTargets.secretHints where offered.contains(hint.target) {
            guard let secretValue = hint.secretValue else {
                isSecret = true
                break
            }
            let value = try? await requestor.convert(connection.clipboard, to: hint.target, limit: 256, timeout: timeout)
            if let value, X11ClipboardTargets.marksSecret(value.bytes, as: secretValue) {
                isSecret = true
                break
            }
        }
        return ClipboardContent(types: X11ClipboardTargets.types(amongTargets: offered), isSecret: isSecret,
                                isPromise: offered.contains(ClipboardContent.promiseMarker))
    }

    /// The targets the clipboard's owner offers (at most 1024).
    private func targets(timeout: Double) async throws -> [String] {
        let value = try await requestor.convert(connection.clipboard, to: "TARGETS", limit: 4096 * 4, timeout: timeout)
        guard value.type == Atom(XA_ATOM) || value.type == connection.atom("TARGETS") else { return [] }
        return value.items.prefix(1024).compactMap { connection.name(of: Atom($0)) }
    }

    // MARK: Promises

    /// Keeps what another app's clipboard holds, its text and image types, for
    /// ``withdraw()``; nothing when a password manager marked it secret.
    private func keepWhatTheClipboardHolds() async {
        kept = KeptClipboard()
        guard let display = connection.usableDisplay, XGetSelectionOwner(display, connection.clipboard) != 0 else { return }
        let deadline = Date().addingTimeInterval(KeptClipboard.time)
        let step = min(timeout, KeptClipboard.time)
        guard let content = try? await content(timeout: step) else { return }
        kept = await KeptClipboard.keep(content, until: deadline, step: step) { try await read($0, limit: $1, timeout: $2) }
        logger.debug("kept what the clipboard held (\(kept.types.joined(separator: ", ")))")
    }

    /// Takes the clipboard with `types`, each fetched from `provide` when an app first asks for
    /// it (and kept for the promise's later pastes).
    private func take(_ types: [String], provide: @escaping @MainActor (String) async throws -> [UInt8], for mine: Int) async {
        let since = await connection.serverTime()
        guard generation == mine, let display = connection.usableDisplay else { return }
        owner.offer = Self.offer(types, marked: marksPromises, since: since, content: KeptClipboard.onceEachType(provide))
        XSetSelectionOwner(display, connection.clipboard, connection.window, since)
        guard XGetSelectionOwner(display, connection.clipboard) == connection.window else {
            owner.offer = nil
            return logger.notice("could not take the clipboard for a promise")
        }
        connection.flush()
        logger.info("holding the clipboard for a promise of \(types.joined(separator: ", "))")
    }

    /// What is offered for `types`, each type's content from `content`; X11's text targets
    /// answered from UTF-8 text (ISO 8859-1 for `STRING`).
    private static func offer(_ types: [String], marked: Bool, since: Time,
                              content: @escaping @MainActor (String) async throws -> [UInt8]) -> X11SelectionOffer {
        X11SelectionOffer(targets: X11ClipboardTargets.targets(offering: types, marked: marked).filter { $0 != "TARGETS" && $0 != "TIMESTAMP" },
                          content: { target in
                              if marked, target == ClipboardContent.promiseMarker { return (target, []) }
                              guard let type = X11ClipboardTargets.type(answering: target, among: types) else {
                                  throw ClipboardError.typeNotOffered(target)
                              }
                              let bytes = try await content(type)
                              switch target {
                              case "STRING": return ("STRING", X11ClipboardTargets.latin1(fromUTF8: bytes))
                              case "TEXT": return ("UTF8_STRING", bytes)
                              default: return (target, bytes)
                              }
                          },
                          since: since)
    }
}
