import Baton
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport
import Foundation
import Logging

/// A window to write one message. Its activity, `org.example.mail.compose`, holds the draft;
/// every field marks it dirty, and an update pass reads the fields back into `userInfo`.
///
/// Drafts are transactional: when the draft is continued on another device, this window
/// closes, and only then. Closing a window with something written in it asks first.
@MainActor
final class ComposeWindow: AppWindow, UserActivityDelegate {
    let draftID: UUID
    private(set) var inReplyTo: String?
    private let toEntry = Widgets.entry(placeholder: "Recipients")
    private let ccEntry = Widgets.entry(placeholder: "Copies")
    private let subjectEntry = Widgets.entry(placeholder: "Subject")
    private let bodyView: UnsafeMutablePointer<GtkWidget> = gtk_text_view_new()!
    var bodyViewWidget: UnsafeMutablePointer<GtkWidget> { bodyView }
    /// The header bar's title (the subject) and subtitle (the recipients).
    private let windowTitle: Widgets.Widget = adw_window_title_new("New Message", "")!
    /// The question asked before a written draft is closed.
    private let discardQuestion = QuestionDialog()
    private let onSend: (ComposeWindow, MailMessage) -> Bool
    /// Where attachments' bytes are kept.
    let store: AttachmentStore
    /// The attached files, in the order they were attached.
    var attachments: [Attachment] = []
    /// Attachments whose bytes are not here, with why (by SHA-256).
    var missingAttachments: [String: String] = [:]
    /// Attachments on their way from the device the draft came from (by SHA-256).
    var receivingAttachments: Set<String> = []
    /// The row under the fields that lists the attachments.
    let attachmentsBox = gtk_flow_box_new()!
    /// The chooser of files to attach.
    let fileChooser = FileChooser()

    /// Says, in the main window, where the draft went when another device continued it.
    private let onContinuedElsewhere: @MainActor (_ news: String, _ device: String) -> Void

    init(application: BatonApplication, draftID: UUID = UUID(), store: AttachmentStore,
         onContinuedElsewhere: @escaping @MainActor (_ news: String, _ device: String) -> Void = { _, _ in },
         onSend: @escaping (ComposeWindow, MailMessage) -> Bool) {
        self.draftID = draftID
        self.onSend = onSend
        self.onContinuedElsewhere = onContinuedElsewhere
        self.store = store
        super.init(application: application, title: "New Message", width: 640, height: 520,
                   shortcuts: MailApplication.shortcuts)
        buildLayout()

        let activity = UserActivity(activityType: MailActivities.compose, center: application.center)
        activity.delegate = self
        // Attachments travel through continuation streams (userActivity(_:didReceive:)).
        activity.supportsContinuationStreams = true
        try? activity.setWebpageURL(MailActivities.draftURL(draftID))
        userActivity = activity
        refreshTitle()

        markNeedsSaveOnChange(of: toEntry)
        markNeedsSaveOnChange(of: ccEntry)
        markNeedsSaveOnChange(of: subjectEntry)
        markNeedsSaveOnChange(ofTextView: bodyView.cast(to: GtkTextView.self))
        GObjectSignals.connect(subjectEntry, "changed") { [weak self] in self?.refreshTitle() }
        GObjectSignals.connect(toEntry, "changed") { [weak self] in self?.refreshTitle() }
        addAction("send") { [weak self] in self?.send() }
        addAction("close") { [weak self] in self?.close() }
        addAction("attach") { [weak self] in self?.chooseAttachments() }
    }

    private var buffer: UnsafeMutablePointer<GtkTextBuffer> {
        gtk_text_view_get_buffer(bodyView.cast(to: GtkTextView.self))
    }

    private func buildLayout() {
        setTitleWidget(windowTitle)
        packEnd(Widgets.button(label: "_Send", action: "win.send", tooltip: "Send (Ctrl+Enter)",
                               classes: ["suggested-action"]))
        packEnd(Widgets.button(icon: "mail-attachment-symbolic", action: "win.attach",
                               tooltip: "Attach Files (Ctrl+Shift+A)"))

        let fields = gtk_grid_new()!
        gtk_grid_set_row_spacing(fields.cast(to: GtkGrid.self), 6)
        gtk_grid_set_column_spacing(fields.cast(to: GtkGrid.self), 12)
        Widgets.margins(fields, 12)
        for (row, (name, entry)) in [("To", toEntry), ("Cc", ccEntry), ("Subject", subjectEntry)].enumerated() {
            let label = Widgets.label(name, classes: ["dim-label"], xalign: 1)
            gtk_grid_attach(fields.cast(to: GtkGrid.self), label, 0, Int32(row), 1, 1)
            gtk_grid_attach(fields.cast(to: GtkGrid.self), entry, 1, Int32(row), 1, 1)
        }

        let textView = bodyView.cast(to: GtkTextView.self)
        gtk_text_view_set_wrap_mode(textView, GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_left_margin(textView, 12)
        gtk_text_view_set_right_margin(textView, 12)
        gtk_text_view_set_top_margin(textView, 12)
        gtk_text_view_set_bottom_margin(textView, 12)

        let content = Widgets.box(.vertical)
        Widgets.append(fields, to: content)
        buildAttachmentsRow()
        Widgets.append(attachmentsBox, to: content)
        Widgets.append(gtk_separator_new(GTK_ORIENTATION_HORIZONTAL), to: content)
        Widgets.append(Widgets.scrolled(bodyView), to: content)
        setContent(content)
    }

    /// The draft as the fields hold it now.
    var draft: DraftState {
        var cursorIter = GtkTextIter()
        gtk_text_buffer_get_iter_at_mark(buffer, &cursorIter, gtk_text_buffer_get_insert(buffer))
        return DraftState(
            draftID: draftID, to: Widgets.text(of: toEntry), cc: Widgets.text(of: ccEntry),
            subject: Widgets.text(of: subjectEntry), body: Widgets.text(ofBuffer: buffer),
            cursor: Int(gtk_text_iter_get_offset(&cursorIter)), inReplyTo: inReplyTo, attachments: attachments)
    }

    /// Fills the fields from `draft`, cursor included, and puts the focus in the body.
    func fill(with draft: DraftState) {
        inReplyTo = draft.inReplyTo
        Widgets.setText(toEntry, draft.to)
        Widgets.setText(ccEntry, draft.cc)
        Widgets.setText(subjectEntry, draft.subject)
        gtk_text_buffer_set_text(buffer, draft.body, -1)
        var cursor = GtkTextIter()
        gtk_text_buffer_get_iter_at_offset(buffer, &cursor, Int32(clamping: draft.cursor))
        gtk_text_buffer_place_cursor(buffer, &cursor)
        gtk_widget_grab_focus(draft.to.isEmpty ? toEntry : bodyView)
        attachments = draft.attachments
        noteMissingAttachments()
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        try? userActivity.encodeUserInfo(draft)
    }

    /// Fills the fields with every field of the draft that can be read, and says in the
    /// banner which could not.
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        let reading = DraftReading(userInfo: userActivity.userInfo)
        fill(with: reading.draft)
        if let problem = reading.problemDescription {
            Logger(label: "mailcomposer").warning("\(problem)")
            banner.showError(problem)
        } else if let missing = missingDescription {
            banner.showError(missing)
        } else if receivingAttachments.isEmpty {
            banner.hide()
        }
    }

    private func refreshTitle() {
        let subject = Widgets.text(of: subjectEntry)
        let shown = subject.isEmpty ? "New Message" : subject
        let to = Widgets.text(of: toEntry)
        adw_window_title_set_title(baton_adw_window_title(windowTitle), shown)
        adw_window_title_set_subtitle(baton_adw_window_title(windowTitle), to.isEmpty ? "" : "To \(to)")
        title = shown
        userActivity?.title = "Draft: \(subject.isEmpty ? "No Subject" : subject)"
    }

    private func send() {
        let state = draft
        let message = MailMessage(
            messageID: "<\(draftID.uuidString.lowercased())@mailcomposer.local>",
            from: "You <you@example.org>", to: state.to, cc: state.cc, subject: state.subject,
            date: Date().formatted(.iso8601), inReplyTo: state.inReplyTo, body: state.body)
        guard onSend(self, message) else { return }
        userActivity?.invalidate()
        destroy()
    }

    /// Whether anything has been written: a draft that is not, closes without asking.
    private var hasContent: Bool {
        let state = draft
        return !(state.to.isEmpty && state.cc.isEmpty && state.subject.isEmpty
                 && state.body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    /// Asks before a written draft is lost; an empty one just closes.
    override func windowShouldClose() -> Bool {
        guard hasContent else { return true }
        let subject = Widgets.text(of: subjectEntry)
        discardQuestion.ask(over: gtkWindow, heading: "Discard Draft?",
                            body: subject.isEmpty ? "This message has not been sent and will be lost."
                                : "“\(subject)” has not been sent and will be lost.",
                            responses: [.init("cancel", "_Keep Editing"), .init("discard", "_Discard", appearance: .destructive)]) {
            [weak self] response in
            if response == "discard" { self?.discard() }
        }
        return false
    }

    /// Closes the window and lets its draft go.
    private func discard() {
        userActivity?.invalidate()
        destroy()
    }

    // MARK: UserActivityDelegate

    func userActivityWasContinued(_ userActivity: UserActivity) {
        userActivity.invalidate()
        destroy()
    }

    /// The draft went to another device: it closes here, and the main window says where it
    /// went ("“Lunch on Friday” continued on Study desktop").
    func userActivity(_ userActivity: UserActivity, wasContinuedOn device: String) {
        let subject = Widgets.text(of: subjectEntry)
        onContinuedElsewhere("“\(subject.isEmpty ? "New Message" : subject)” continued on \(device)", device)
        userActivityWasContinued(userActivity)
    }

    /// The device continuing this draft asks for its attachments.
    func userActivity(_ userActivity: UserActivity, didReceive stream: ContinuationStream) {
        let attachments = attachments
        let store = store
        Task { @MainActor in await AttachmentTransfer.serve(stream, attachments: attachments, store: store) }
    }
}

extension ComposeWindow {
    /// Fills the window as a reply to `message`: its sender, "Re:" subject and quoted body.
    func prepareReply(to message: MailMessage) {
        let subject = message.subject.lowercased().hasPrefix("re:") ? message.subject : "Re: \(message.subject)"
        let quoted = message.body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "> \($0)" }.joined(separator: "\n")
        let body = "\n\nOn \(message.date), \(message.from) wrote:\n\(quoted)\n"
        fill(with: DraftState(draftID: draftID, to: message.from, subject: subject, body: body,
                              cursor: 0, inReplyTo: message.messageID))
        gtk_widget_grab_focus(bodyViewWidget)
    }
}
