/// What an app on this device copied: the types it offers, and whether a password manager
/// marked it secret (`x-kde-passwordManagerHint: secret` and the same hint by other names).
struct ClipboardContent: Equatable, Sendable {
    /// The MIME types offered, as the app offers them (`text/plain;charset=utf-8`,
    /// `image/png`, `text/uri-list`…), without the display server's own targets (`TARGETS`,
    /// `TIMESTAMP`, `MULTIPLE`, `SAVE_TARGETS`).
    let types: [String]
    /// Whether the copy is marked secret: such content is never announced.
    let isSecret: Bool
    /// Whether the copy is a device's promise (its types included ``promiseMarker``): another
    /// batond's on the same display, or a clipboard manager's copy of this one's. Such a copy
    /// is not announced, so that devices never hand one copy back and forth.
    var isPromise = false

    /// The type a promise offers beside the announced ones, marking it as a device's promise;
    /// never announced itself.
    static let promiseMarker = "application/x-baton-promise"
}

/// Why the clipboard could not be read or taken.
enum ClipboardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no display (or the display server offers no clipboard to a background client).
    case unavailable(String)
    /// The clipboard no longer holds what was asked for: another copy replaced it, or its
    /// owner went away.
    case changed
    /// The owner does not offer that type.
    case typeNotOffered(String)
    /// The content is larger than the limit asked for.
    case tooLarge(limit: Int)
    /// The owner did not answer in time.
    case timedOut

    var description: String {
        switch self {
        case .unavailable(let reason): "the clipboard is not available: \(reason)"
        case .changed: "the clipboard changed meanwhile"
        case .typeNotOffered(let type): "the clipboard holds no \(type)"
        case .tooLarge(let limit): "the clipboard's content is over \(limit) bytes"
        case .timedOut: "the app holding the clipboard did not answer in time"
        }
    }
}

/// The session's clipboard as the clipboard feature uses it, one implementation per display
/// server: X11 through XFixes selection notifications and selection ownership; Wayland
/// compositors through the data-control protocol.
///
/// The feature announces what ``onCopied`` reports; on the other device it ``promise(_:provide:)``s
/// the announced types, and the data moves only when an app there pastes (``provide`` is
/// called then). The clipboard meant is the one Ctrl+C and Ctrl+V use (X11's `CLIPBOARD`
/// selection), not the primary selection.
@MainActor
protocol LocalClipboard: AnyObject {
    /// Told each time an app on this device takes the clipboard; not when this device takes it
    /// itself for a promise.
    var onCopied: ((ClipboardContent) -> Void)? { get set }

    /// The clipboard's current content as `type`, read from the app that holds it.
    ///
    /// - Throws: ``ClipboardError``: changed, the type not offered, over `limit` bytes, no
    ///   answer in time, no clipboard.
    func read(_ type: String, limit: Int) async throws -> [UInt8]

    /// Takes the clipboard, offering `types`. When an app pastes one of them, `provide` is
    /// called with that type and its bytes are handed to the app; an error from `provide`
    /// leaves that paste empty. What the clipboard held before is kept (its text and image
    /// types, bounded) so that ``withdraw()`` can give it back.
    func promise(_ types: [String], provide: @escaping @MainActor (String) async throws -> [UInt8])

    /// Ends the promise, if this device still holds the clipboard: the clipboard goes back to
    /// what it held before the promise, or is emptied when that is gone; never left offering
    /// what can no longer be fetched.
    func withdraw()

    /// Stops watching and gives the clipboard up.
    func stop()
}
