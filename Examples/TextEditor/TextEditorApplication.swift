import Baton
import BatonGLib
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport
import Foundation
import Logging

/// The text editor: a document app. Each document has a window; the document controller
/// (``DesktopDocumentController``, typed by the Info.plist's `CFBundleDocumentTypes`) gives
/// every saved document the activity `org.example.texteditor.editing`, and its window adds
/// where the person is.
///
/// The app implements no `application(_:continue:restorationHandler:)`: the framework
/// reopens the document a continued activity names and has its window restore the position.
/// It does the same for the windows of the last session (state restoration), so a relaunch
/// brings back each document at the same place. A failure is shown by BatonGtk's dialog.
///
/// One instance per session: a second launch opens its files in the running one, and the bus
/// starts it through its D-Bus service file when the desktop or batond asks for it.
@MainActor
final class TextEditorApplication: BatonApplication, ApplicationDelegate {
    static let applicationID = "org.example.TextEditor"
    /// Shown in the About window.
    static let version = "0.1.0"
    /// The URI a launch passes to the running instance to open a new document (`--new`).
    nonisolated static let newDocumentURI = "texteditor:new"
    /// Where Info.plist, the desktop entry and the icons are.
    static let resources = AppResources(target: "TextEditor", environmentVariable: "TEXTEDITOR_RESOURCES")
    /// The shortcuts the app sets, as its windows' shortcuts window lists them.
    static let shortcuts: [ShortcutsWindow.Group] = [
        .init("Documents", [("New document", "<Control>n"), ("Open a document", "<Control>o"),
                            ("Save", "<Control>s"), ("Save as", "<Control><Shift>s")]),
        .init("General", [("Main menu", "F10"), ("Keyboard shortcuts", "<Control>question"),
                          ("Close window", "<Control>w"), ("Quit", "<Control>q")]),
    ]

    private let logger = Logger(label: "texteditor")
    private var restoration: StateRestoration?
    private var hasRestoredWindows = false
    private let fileChooser = FileChooser()
    /// The document controller, made once the Info.plist is read.
    private(set) var documents: DesktopDocumentController?
    /// Why there is no document controller: the Info.plist could not be read.
    private var setupError: (any Error)?

    init(options: TextEditorOptions) {
        super.init(wrapping: Self.exampleApplication(id: Self.applicationID, standalone: options.instance.standalone))
        delegate = self
        onStartup = { [weak self] in self?.startUp() }
        onActivate = { [weak self] in self?.activate() }
        onOpen = { [weak self] uris in self?.open(uris) }
        restoration = enableStateRestoration(
            directory: options.instance.stateDirectoryURL, interval: options.instance.saveInterval)
        do {
            let info = try Self.resources.bundleInfo()
            documents = DesktopDocumentController(bundleInfo: info, application: self) { [unowned self] url, _ in
                TextDocument(fileURL: url, application: self)
            }
            enableHandoff(declaredIn: info, logger: logger)
        } catch {
            setupError = AppSetupError(appName: "Text Editor", cannot: "open documents", because: error)
            logger.error("cannot read the app's Info.plist, so it opens no documents: \(error)")
            // The last session's windows cannot come back now: what was saved stays for the
            // next start, instead of this start's empty session replacing it.
            restoration?.isPaused = true
        }
        GObjectSignals.connect(UnsafeMutableRawPointer(gtkApplication), "shutdown") { [weak self] in self?.saveAll() }
        GObjectSignals.connect(UnsafeMutableRawPointer(gtkApplication), "query-end") { [weak self] in self?.saveAll() }
    }

    private func startUp() {
        Self.resources.addIconsToTheme()
        gtk_window_set_default_icon_name(Self.applicationID)
        addAction("new", accelerators: ["<Control>n"]) { [weak self] in self?.newDocument() }
        addAction("open", accelerators: ["<Control>o"]) { [weak self] in self?.chooseDocuments() }
        addAction("about") { [weak self] in self?.showAbout() }
        addAction("quit", accelerators: ["<Control>q"]) { [weak self] in self?.quitAsking() }
        setAccelerators(["<Control>question"], for: "win.show-help-overlay")
        setAccelerators(["<Control>s"], for: "win.save")
        setAccelerators(["<Control><Shift>s"], for: "win.save-as")
        setAccelerators(["<Control>w"], for: "win.close")
    }

    /// A launch without files: the last session's windows, or a new document when there
    /// were none; a running instance brings its active window forward.
    private func activate() {
        restoreWindows()
        if let window = applicationWindows.last {
            window.present()
        } else {
            newDocument()
        }
    }

    /// Brings back the windows of the last session, once per process.
    private func restoreWindows() {
        guard !hasRestoredWindows else { return }
        hasRestoredWindows = true
        let restored = restoration?.restore() ?? 0
        if restored > 0 { logger.info("restored \(restored) window(s)") }
    }

    /// Opens each file (a new document for the URI of `--new`); a file that does not exist
    /// yet opens empty and is created when first saved. Failures are shown in a dialog.
    private func open(_ uris: [String]) {
        restoreWindows()
        for uri in uris {
            if uri == Self.newDocumentURI {
                newDocument()
            } else if let url = URL(string: uri), url.isFileURL {
                openDocument(at: url)
            } else {
                presentError(TextDocumentError.unreadable(uri, reason: "Text Editor opens only local files"))
            }
        }
    }

    /// The document controller, or `nil` after showing why there is none.
    private var documentsOrError: DesktopDocumentController? {
        if documents == nil { presentError(setupError ?? DocumentError.noDocumentTypes) }
        return documents
    }

    private func openDocument(at url: URL) {
        guard let documents = documentsOrError else { return }
        if let open = documents.document(for: url) as? TextDocument {
            open.window?.present()
            return
        }
        do {
            if !FileManager.default.fileExists(atPath: url.path), let type = documents.documentType(for: url) {
                let document = try documents.openUntitledDocument(ofType: type, display: false)
                document.fileURL = url
                document.makeWindowControllers()
            } else {
                let document = try documents.openDocument(withContentsOf: url)
                (document as? TextDocument)?.window?.present()
            }
        } catch {
            presentError(error)
        }
    }

    private func newDocument() {
        guard let documents = documentsOrError else { return }
        do {
            try documents.openUntitledDocument()
        } catch {
            presentError(error)
        }
    }

    private func chooseDocuments() {
        let parent = gtk_application_get_active_window(gtkApplication)
        fileChooser.show(over: parent, title: "Open Documents", accept: "_Open", purpose: .open(multiple: true)) {
            [weak self] urls in
            for url in urls { self?.openDocument(at: url) }
        }
    }

    /// Saves every edited document that has a file: on quit and when the session ends.
    private func saveAll() {
        for case let document as TextDocument in documents?.documents ?? [] {
            try? document.saveIfEdited()
        }
    }

    /// Quits (Ctrl+Q), unless an untitled document holds text: its window comes forward and
    /// asks whether to save it, as closing it would. Documents with files are saved on quit.
    private func quitAsking() {
        let unsaved = applicationWindows.compactMap { $0 as? EditorWindow }.first { $0.hasUnsavedText }
        guard let unsaved else { return quit() }
        unsaved.present()
        unsaved.close()
    }

    private func showAbout() {
        AboutWindow.present(for: gtkApplication, name: "Text Editor", icon: Self.applicationID, version: Self.version,
                            comments: "Edit plain text and Markdown. Your documents continue on your other devices through Baton, at the same line.")
    }

    // MARK: ApplicationDelegate

    /// When batond started the app to continue a document, the last session's windows open
    /// beside it (its `activate` does not run).
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        if launchReason.isContinuation { restoreWindows() }
        return true
    }
}
