import Baton
import CBatonGtk
import CGtk

extension WidgetResponder {
    /// Marks this responder's activity as needing a save whenever `editable` changes:
    /// its text (`changed`), its cursor or its selection. One line per field:
    ///
    /// ```swift
    /// composer.markNeedsSaveOnChange(of: subjectEntry)
    /// ```
    ///
    /// `editable` is any widget implementing `GtkEditable` (`GtkEntry`, `GtkText`, …);
    /// other widgets are ignored. The handlers go away with the widget.
    public func markNeedsSaveOnChange(of editable: UnsafeMutablePointer<GtkWidget>) {
        guard baton_is_editable(editable).isTrue else { return }
        for signal in ["changed"] {
            GObjectSignals.connect(editable, signal) { [weak self] in self?.markNeedsSave() }
        }
        for property in ["cursor-position", "selection-bound"] {
            GObjectSignals.onNotify(editable, property) { [weak self] in self?.markNeedsSave() }
        }
    }

    /// Marks this responder's activity as needing a save whenever `buffer` changes: its
    /// text (`changed`), or its cursor and selection (`notify::cursor-position`,
    /// `notify::has-selection`). The handlers go away with the buffer.
    public func markNeedsSaveOnChange(of buffer: UnsafeMutablePointer<GtkTextBuffer>) {
        GObjectSignals.connect(buffer, "changed") { [weak self] in self?.markNeedsSave() }
        for property in ["cursor-position", "has-selection"] {
            GObjectSignals.onNotify(buffer, property) { [weak self] in self?.markNeedsSave() }
        }
    }

    /// Marks the text view's buffer, as ``markNeedsSaveOnChange(of:)-buffer`` does.
    public func markNeedsSaveOnChange(ofTextView textView: UnsafeMutablePointer<GtkTextView>) {
        guard let buffer = gtk_text_view_get_buffer(textView) else { return }
        markNeedsSaveOnChange(of: buffer)
    }

    private func markNeedsSave() {
        userActivity?.needsSave = true
    }
}
