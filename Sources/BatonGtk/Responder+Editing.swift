import Baton
import BatonGLib
import CGLib
import CGtk

extension Responder {
    /// Marks this responder's activity as needing a save whenever `editable` changes:
    /// its text (`changed`), its cursor or its selection. One line per field:
    ///
    /// ```swift
    /// composeWindow.markNeedsSaveOnChange(of: subjectEntry)
    /// ```
    ///
    /// The activity marked is the one this responder owns when the change happens.
    /// `editable` is any widget implementing `GtkEditable` (`GtkEntry`, `GtkText`, …);
    /// other widgets are ignored. The handlers go away with the widget.
    public func markNeedsSaveOnChange(of editable: UnsafeMutablePointer<GtkWidget>) {
        guard baton_is_editable(editable).isTrue else { return }
        GObjectSignals.connect(editable, "changed") { [weak self] in self?.markActivityNeedsSave() }
        for property in ["cursor-position", "selection-bound"] {
            GObjectSignals.onNotify(editable, property) { [weak self] in self?.markActivityNeedsSave() }
        }
    }

    /// Marks this responder's activity as needing a save whenever `buffer` changes: its
    /// text (`changed`), or its cursor and selection (`notify::cursor-position`,
    /// `notify::has-selection`). The handlers go away with the buffer.
    public func markNeedsSaveOnChange(of buffer: UnsafeMutablePointer<GtkTextBuffer>) {
        GObjectSignals.connect(buffer, "changed") { [weak self] in self?.markActivityNeedsSave() }
        for property in ["cursor-position", "has-selection"] {
            GObjectSignals.onNotify(buffer, property) { [weak self] in self?.markActivityNeedsSave() }
        }
    }

    /// Marks the text view's buffer, as `markNeedsSaveOnChange(of:)` does for a buffer.
    public func markNeedsSaveOnChange(ofTextView textView: UnsafeMutablePointer<GtkTextView>) {
        guard let buffer = gtk_text_view_get_buffer(textView) else { return }
        markNeedsSaveOnChange(of: buffer)
    }

    /// Marks this responder's activity as needing a save whenever the selected rows of
    /// `listBox` change (`selected-rows-changed`).
    public func markNeedsSaveOnSelectionChange(ofListBox listBox: OpaquePointer) {
        GObjectSignals.connect(UnsafeMutableRawPointer(listBox), "selected-rows-changed") { [weak self] in
            self?.markActivityNeedsSave()
        }
    }

    private func markActivityNeedsSave() {
        userActivity?.needsSave = true
    }
}
