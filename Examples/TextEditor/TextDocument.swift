import Baton
import BatonGLib
import BatonGtk
import CGtk
import ExampleSupport
import Foundation
import Glibc

/// A plain text or Markdown file open in the editor. Its text lives in a `GtkTextBuffer`
/// that its window shows; an edit is saved to the file a second after the last keystroke
/// (and when the window closes or the app quits), so the file another device opens is what
/// the person sees here.
///
/// Its activity, `org.example.texteditor.editing`, comes from the document controller
/// (Info.plist's `NSUbiquitousDocumentUserActivityType`): this class adds nothing to it, and
/// its window adds the cursor and the line in the middle of the view.
@MainActor
final class TextDocument: Document {
    /// The largest file the editor opens.
    static let maximumSize = 16 << 20
    /// How long after the last edit the document is saved, in seconds.
    static let autosaveDelay = 1.0

    let buffer: UnsafeMutablePointer<GtkTextBuffer>
    /// Whether the buffer holds edits not yet saved.
    private(set) var isEdited = false
    /// The window showing the document, once made.
    weak var window: EditorWindow?
    /// Told when ``isEdited``, the file or an error changes what the window should show.
    var onChange: (@MainActor () -> Void)?
    private var isLoading = false
    private var autosaveSource: guint = 0
    /// Why the last save failed, until one succeeds.
    private(set) var saveError: TextDocumentError?

    /// The app the document's window belongs to.
    private unowned let application: BatonApplication

    init(fileURL: URL?, application: BatonApplication) {
        buffer = gtk_text_buffer_new(nil)
        self.application = application
        super.init(fileURL: fileURL)
        GObjectSignals.connect(buffer, "changed") { [weak self] in self?.bufferDidChange() }
    }

    isolated deinit {
        if autosaveSource != 0 { GLibSources.cancel(autosaveSource) }
        g_object_unref(UnsafeMutableRawPointer(buffer))
    }

    /// The file's name, or "Untitled" before it has one.
    var displayName: String { fileURL?.lastPathComponent ?? "Untitled" }

    /// The whole text.
    var text: String {
        Widgets.text(ofBuffer: buffer)
    }

    /// Reads the file as UTF-8 text.
    ///
    /// - Throws: ``TextDocumentError`` when it cannot be read, is over ``maximumSize`` or is
    ///   not UTF-8 text (a NUL byte included); the buffer is then unchanged.
    override func read(from url: URL, ofType typeName: String) throws {
        let name = url.lastPathComponent
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw TextDocumentError.unreadable(name, reason: Self.reason(error))
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: Self.maximumSize + 1) ?? Data()
        } catch {
            throw TextDocumentError.unreadable(name, reason: Self.reason(error))
        }
        guard data.count <= Self.maximumSize else { throw TextDocumentError.tooLarge(name, limit: Self.maximumSize) }
        guard !data.contains(0), let text = String(data: data, encoding: .utf8) else { throw TextDocumentError.notText(name) }
        isLoading = true
        gtk_text_buffer_set_text(buffer, text, -1)
        var start = GtkTextIter()
        gtk_text_buffer_get_start_iter(buffer, &start)
        gtk_text_buffer_place_cursor(buffer, &start)
        isLoading = false
        isEdited = false
        onChange?()
    }

    /// Writes the text to `url` (the document's file unless given), replacing the file
    /// whole (GIO writes a new file beside it and renames it over the old one, keeping the
    /// old one's permissions), and makes `url` the document's file.
    ///
    /// - Throws: ``TextDocumentError/unwritable(_:reason:)``; the document stays edited and
    ///   its file is unchanged.
    func save(to url: URL? = nil) throws {
        guard let url = url ?? fileURL else { throw TextDocumentError.noFile }
        cancelAutosave()
        let bytes = Array(text.utf8)
        let file = g_file_new_for_path(url.path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        var error: UnsafeMutablePointer<GError>?
        let written = bytes.withUnsafeBytes { raw in
            g_file_replace_contents(file, raw.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(raw.count), nil, 0,
                                    G_FILE_CREATE_NONE, nil, nil, &error)
        }
        guard written != 0 else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            let failure = TextDocumentError.unwritable(url.lastPathComponent, reason: reason)
            saveError = failure
            onChange?()
            throw failure
        }
        saveError = nil
        isEdited = false
        if fileURL != url { fileURL = url }
        onChange?()
    }

    /// Saves now if there are edits and a file to save them to.
    ///
    /// - Throws: what ``save(to:)`` throws; the failure also stays in ``saveError`` for the
    ///   window to show.
    func saveIfEdited() throws {
        guard isEdited, fileURL != nil else { return }
        try save()
    }

    override var userActivity: UserActivity? {
        didSet { window?.userActivity = userActivity }
    }

    override var fileURL: URL? {
        didSet { if oldValue != fileURL { onChange?() } }
    }

    override func makeWindowControllers() {
        let window = EditorWindow(document: self, application: application)
        self.window = window
        window.present()
    }

    /// Closes, saving what is edited (a document with a file) first, as far as it can.
    override func close() {
        try? saveIfEdited()
        cancelAutosave()
        super.close()
    }

    private func bufferDidChange() {
        guard !isLoading else { return }
        isEdited = true
        onChange?()
        guard fileURL != nil else { return }
        cancelAutosave()
        autosaveSource = GLibSources.once(after: Self.autosaveDelay) { [weak self] in
            self?.autosaveSource = 0
            try? self?.saveIfEdited()
        }
    }

    private func cancelAutosave() {
        if autosaveSource != 0 { GLibSources.cancel(autosaveSource) }
        autosaveSource = 0
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? error.localizedDescription
    }
}

/// Why a text document could not be read or saved, as the person is told.
enum TextDocumentError: Error, Hashable, CustomStringConvertible {
    case unreadable(String, reason: String)
    case tooLarge(String, limit: Int)
    case notText(String)
    case unwritable(String, reason: String)
    case noFile

    var description: String {
        switch self {
        case .unreadable(let name, let reason): "“\(name)” could not be read: \(reason)"
        case .tooLarge(let name, let limit): "“\(name)” is larger than \(limit >> 20) MiB, more than Text Editor opens"
        case .notText(let name): "“\(name)” is not UTF-8 text"
        case .unwritable(let name, let reason): "“\(name)” could not be saved: \(reason)"
        case .noFile: "the document has no file yet: choose one with Save As"
        }
    }
}
