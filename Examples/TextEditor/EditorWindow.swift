import Baton
import BatonGLib
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport
import Foundation

/// The window of one document: its text, the file's name and folder in the header bar, and
/// a banner for what the person must know (a save that failed).
///
/// It shares the document's activity and adds where the person is (``TextPosition``):
/// moving the cursor or scrolling marks the activity for an update pass, and a continued or
/// restored activity puts the cursor and the view back at the same lines.
@MainActor
final class EditorWindow: AppWindow {
    let document: TextDocument
    private let textView: UnsafeMutablePointer<GtkWidget>
    private let windowTitle: Widgets.Widget = adw_window_title_new("", "")!
    private let closeQuestion = QuestionDialog()
    private let fileChooser = FileChooser()
    /// Where the view scrolls to, once its lines are measured.
    private var scrollMark: UnsafeMutablePointer<GtkTextMark>?

    init(document: TextDocument, application: BatonApplication) {
        self.document = document
        textView = gtk_text_view_new_with_buffer(document.buffer)!
        super.init(application: application, title: document.displayName, width: 760, height: 640,
                   shortcuts: TextEditorApplication.shortcuts)
        buildLayout()
        userActivity = document.userActivity
        markNeedsSaveOnChange(of: document.buffer)
        if let adjustment = gtk_scrollable_get_vadjustment(OpaquePointer(textView)) {
            GObjectSignals.connect(UnsafeMutableRawPointer(adjustment), "value-changed") { [weak self] in
                self?.userActivity?.needsSave = true
            }
        }
        document.onChange = { [weak self] in self?.refresh() }
        addAction("save") { [weak self] in self?.save() }
        addAction("save-as") { [weak self] in self?.saveAs() }
        addAction("close") { [weak self] in self?.close() }
        refresh()
        gtk_widget_grab_focus(textView)
    }

    private func buildLayout() {
        setTitleWidget(windowTitle)
        packStart(Widgets.button(label: "_Open", action: "app.open", tooltip: "Open a Document (Ctrl+O)"))
        packStart(Widgets.button(icon: "tab-new-symbolic", action: "app.new", tooltip: "New Document (Ctrl+N)"))
        packEnd(PrimaryMenu.button(appName: "Text Editor", items: [("_Save As…", "win.save-as")]))

        let view = textView.cast(to: GtkTextView.self)
        gtk_text_view_set_monospace(view, 1)
        gtk_text_view_set_wrap_mode(view, GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_left_margin(view, 12)
        gtk_text_view_set_right_margin(view, 12)
        gtk_text_view_set_top_margin(view, 12)
        gtk_text_view_set_bottom_margin(view, 12)
        setContent(Widgets.scrolled(textView))
    }

    /// Shows the file's name (the window's title) and folder, and a failed save.
    private func refresh() {
        let name = document.displayName
        title = name
        adw_window_title_set_title(baton_adw_window_title(windowTitle), name)
        adw_window_title_set_subtitle(baton_adw_window_title(windowTitle), folderDescription)
        if let error = document.saveError {
            banner.showError("\(error). Your changes are kept in this window.")
        } else if banner.message != nil, banner.message?.hasSuffix("Your changes are kept in this window.") == true {
            banner.hide()
        }
    }

    /// The file's folder, with the home folder as `~`; "Not saved" before it has a file.
    private var folderDescription: String {
        guard let folder = document.fileURL?.deletingLastPathComponent().path else {
            return document.isEdited ? "Not saved" : ""
        }
        let home = XDGDirectories.home.path
        return folder == home || folder.hasPrefix(home + "/") ? "~" + folder.dropFirst(home.count) : folder
    }

    // MARK: Position

    private var view: UnsafeMutablePointer<GtkTextView> { textView.cast(to: GtkTextView.self) }

    /// Where the cursor is, and the line at the middle of the visible part of the text.
    var position: TextPosition {
        var cursor = GtkTextIter()
        gtk_text_buffer_get_iter_at_mark(document.buffer, &cursor, gtk_text_buffer_get_insert(document.buffer))
        var middle = GtkTextIter()
        var top: Int32 = 0
        if let adjustment = gtk_scrollable_get_vadjustment(OpaquePointer(textView)) {
            // The adjustment counts the view's top margin; buffer coordinates do not.
            let y = gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment) / 2
                - Double(gtk_text_view_get_top_margin(view))
            gtk_text_view_get_line_at_y(view, &middle, Int32(y), &top)
        } else {
            gtk_text_buffer_get_start_iter(document.buffer, &middle)
        }
        return TextPosition(cursorLine: Int(gtk_text_iter_get_line(&cursor)) + 1,
                            cursorColumn: Int(gtk_text_iter_get_line_offset(&cursor)) + 1,
                            middleLine: Int(gtk_text_iter_get_line(&middle)) + 1)
    }

    /// Puts the cursor at `position` and scrolls so its middle line is in the middle of the
    /// view, as far as the text allows (a line past the end is the last one).
    func show(_ position: TextPosition) {
        var cursor = iter(line: position.cursorLine)
        var lineEnd = cursor
        if gtk_text_iter_ends_line(&lineEnd) == 0 { gtk_text_iter_forward_to_line_end(&lineEnd) }
        let lineLength = Int(gtk_text_iter_get_line_offset(&lineEnd))
        gtk_text_iter_set_line_offset(&cursor, Int32(clamping: min(position.cursorColumn - 1, lineLength)))
        gtk_text_buffer_place_cursor(document.buffer, &cursor)
        var middle = iter(line: position.middleLine)
        // A mark, not an iterator: GTK scrolls to it once it has measured the lines above it,
        // so the mark stays until the next position replaces it.
        if let scrollMark {
            gtk_text_buffer_move_mark(document.buffer, scrollMark, &middle)
        } else {
            scrollMark = gtk_text_buffer_create_mark(document.buffer, nil, &middle, 1)
        }
        gtk_text_view_scroll_to_mark(view, scrollMark, 0, 1, 0, 0.5)
        // Once GTK has measured every line (its validation runs at a higher priority), the
        // same scroll lands where the person was, whatever the lines' estimated heights were.
        GLibSources.onceIdle { [weak self] in
            guard let self, let scrollMark else { return }
            gtk_text_view_scroll_to_mark(view, scrollMark, 0, 1, 0, 0.5)
            keepScrollWithinText()
        }
        gtk_widget_grab_focus(textView)
    }

    /// Scrolls back so that the view never starts past the text's end: a scroll made while
    /// GTK still estimated the lines' heights may leave the view below a short text, showing
    /// its last lines at the top of an empty window.
    private func keepScrollWithinText() {
        guard let adjustment = gtk_scrollable_get_vadjustment(OpaquePointer(textView)) else { return }
        var end = GtkTextIter()
        gtk_text_buffer_get_end_iter(document.buffer, &end)
        var lineTop: Int32 = 0
        var lineHeight: Int32 = 0
        gtk_text_view_get_line_yrange(view, &end, &lineTop, &lineHeight)
        let textHeight = Double(lineTop + lineHeight + gtk_text_view_get_top_margin(view) + gtk_text_view_get_bottom_margin(view))
        let furthest = max(0, textHeight - gtk_adjustment_get_page_size(adjustment))
        if gtk_adjustment_get_value(adjustment) > furthest { gtk_adjustment_set_value(adjustment, furthest) }
    }

    private func iter(line: Int) -> GtkTextIter {
        var iter = GtkTextIter()
        let last = gtk_text_buffer_get_line_count(document.buffer) - 1
        gtk_text_buffer_get_iter_at_line(document.buffer, &iter, min(Int32(clamping: line - 1), last))
        return iter
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        userActivity.addUserInfoEntries(from: position.userInfo)
    }

    /// Shows the same place; a document the Baton service copied from the other device (it
    /// was not on this one) says so, and where the copy is.
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        show(TextPosition(userInfo: userActivity.userInfo))
        if let device = userActivity.documentCopiedFrom {
            banner.showInfo("This is a copy of “\(document.displayName)” from \(device), kept in \(folderDescription). "
                            + "Changes here stay on this device.")
        }
    }

    // MARK: Saving and closing

    private func save() {
        guard document.fileURL != nil else { return saveAs() }
        try? document.save()
    }

    /// Asks where to save the document, then saves it there; `then` runs once it is saved.
    private func saveAs(then: (@MainActor () -> Void)? = nil) {
        let suggested = document.fileURL?.lastPathComponent ?? "Untitled.md"
        fileChooser.show(over: gtkWindow, title: "Save As", accept: "_Save", purpose: .save(suggestedName: suggested)) {
            [weak self] urls in
            guard let self, let url = urls.first else { return }
            // A failure stays on the document (saveError), which the banner shows.
            guard (try? document.save(to: url)) != nil else { return }
            then?()
        }
    }

    /// Whether closing would lose text: an untitled document with something written in it.
    var hasUnsavedText: Bool {
        document.fileURL == nil && !document.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// A document with a file closes once its edits are saved (a save that fails keeps the
    /// window open, and the banner says why); an untitled one with text asks first whether
    /// to save it.
    override func windowShouldClose() -> Bool {
        guard hasUnsavedText else {
            guard (try? document.saveIfEdited()) != nil else { return false }
            document.close()
            return true
        }
        closeQuestion.ask(over: gtkWindow, heading: "Save Changes?",
                          body: "This document has not been saved. Its text is lost if you close it without saving.",
                          responses: [.init("cancel", "_Cancel"), .init("discard", "_Discard", appearance: .destructive),
                                      .init("save", "_Save As…", appearance: .suggested)]) { [weak self] response in
            guard let self else { return }
            switch response {
            case "discard":
                document.close()
                destroy()
            case "save":
                saveAs { [weak self] in
                    self?.document.close()
                    self?.destroy()
                }
            default:
                break
            }
        }
        return false
    }
}
