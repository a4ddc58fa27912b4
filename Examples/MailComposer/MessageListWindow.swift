import Baton
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport
import Foundation

/// The main window: the inbox on the left, the selected message on the right (a status page
/// while none is), the primary menu, and a banner for continuations. Reading a message is
/// the activity `org.example.mail.read`; its `userInfo` names the message shown and the
/// message at the middle of the visible list.
@MainActor
final class MessageListWindow: AppWindow {
    private(set) var messages: [MailMessage] = []
    private let list: UnsafeMutablePointer<GtkWidget> = gtk_list_box_new()!
    private var listScroller: UnsafeMutablePointer<GtkWidget>!
    private let subjectLabel = Widgets.label("", classes: ["title-2"], wrap: true)
    private let senderLabel = Widgets.label("", classes: ["dim-label"])
    private let bodyView: UnsafeMutablePointer<GtkWidget> = gtk_text_view_new()!
    /// The reader, or a status page while no message is selected.
    private let readerStack: UnsafeMutablePointer<GtkWidget> = gtk_stack_new()!
    /// The list, or a status page while the mailbox is empty.
    private let listStack: UnsafeMutablePointer<GtkWidget> = gtk_stack_new()!
    private var rows: [UnsafeMutablePointer<GtkListBoxRow>] = []
    private var pendingScrollTarget: String?

    init(application: BatonApplication) {
        super.init(application: application, title: "Mail Composer", width: 960, height: 620,
                   shortcuts: MailApplication.shortcuts)
        buildLayout()
        GObjectSignals.connect(list, "selected-rows-changed") { [weak self] in self?.selectionDidChange() }
        markNeedsSaveOnSelectionChange(ofListBox: OpaquePointer(list))
        if let adjustment = listAdjustment {
            GObjectSignals.connect(adjustment, "value-changed") { [weak self] in
                self?.userActivity?.needsSave = true
            }
            GObjectSignals.connect(adjustment, "changed") { [weak self] in self?.applyPendingScroll() }
        }
        addAction("close") { [weak self] in self?.destroy() }
        addAction("reply") { [weak self] in
            guard let self, let message = self.selectedMessage else { return }
            (self.application as? MailApplication)?.openReply(to: message)
        }
    }

    private func buildLayout() {
        packStart(Widgets.button(icon: "mail-message-new-symbolic", action: "app.compose",
                                 tooltip: "New Message (Ctrl+N)"))
        packStart(Widgets.button(icon: "mail-reply-sender-symbolic", action: "win.reply",
                                 tooltip: "Reply (Ctrl+R)"))
        packEnd(PrimaryMenu.button(appName: "Mail Composer"))

        gtk_list_box_set_selection_mode(OpaquePointer(list), GTK_SELECTION_SINGLE)
        Widgets.addClasses(["navigation-sidebar"], to: list)
        listScroller = Widgets.scrolled(list)
        gtk_stack_add_named(OpaquePointer(listStack), listScroller, "list")
        gtk_stack_add_named(OpaquePointer(listStack),
                            Widgets.statusPage(icon: "mail-unread-symbolic", title: "No Messages",
                                               description: "Messages you receive appear here."), "empty")
        gtk_widget_set_size_request(listStack, 300, -1)

        let textView = bodyView.cast(to: GtkTextView.self)
        gtk_text_view_set_editable(textView, 0)
        gtk_text_view_set_cursor_visible(textView, 0)
        gtk_text_view_set_wrap_mode(textView, GTK_WRAP_WORD_CHAR)
        let reader = Widgets.box(.vertical, spacing: 6)
        Widgets.margins(reader, 18)
        Widgets.append(subjectLabel, to: reader)
        Widgets.append(senderLabel, to: reader)
        Widgets.append(gtk_separator_new(GTK_ORIENTATION_HORIZONTAL), to: reader)
        Widgets.append(Widgets.scrolled(bodyView), to: reader)
        gtk_stack_add_named(OpaquePointer(readerStack), reader, "message")
        Widgets.addClasses(["view"], to: readerStack)   // the message on the content background
        gtk_stack_add_named(OpaquePointer(readerStack),
                            Widgets.statusPage(icon: "mail-read-symbolic", title: "No Message Selected",
                                               description: "Choose a message from the list to read it."), "none")

        let paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL)!
        gtk_paned_set_start_child(OpaquePointer(paned), listStack)
        gtk_paned_set_end_child(OpaquePointer(paned), readerStack)
        gtk_paned_set_resize_start_child(OpaquePointer(paned), 0)
        gtk_paned_set_shrink_start_child(OpaquePointer(paned), 0)
        gtk_paned_set_position(OpaquePointer(paned), 340)
        setContent(paned)
        show(nil)
        showsEmptyList(true)
    }

    private func showsEmptyList(_ empty: Bool) {
        gtk_stack_set_visible_child_name(OpaquePointer(listStack), empty ? "empty" : "list")
    }

    /// Shows `messages` in the list, newest first.
    func load(_ messages: [MailMessage]) {
        self.messages = messages.reversed()
        for row in rows { gtk_list_box_remove(OpaquePointer(list), row.cast(to: GtkWidget.self)) }
        rows = []
        for message in self.messages {
            let entry = Widgets.box(.vertical, spacing: 2)
            Widgets.margins(entry, 6)
            Widgets.append(Widgets.label(message.from.components(separatedBy: " <").first ?? message.from,
                                         classes: ["heading"]), to: entry)
            Widgets.append(Widgets.label(message.subject), to: entry)
            Widgets.append(Widgets.label(FriendlyDate.text(ofHeader: message.date), classes: ["dim-label", "caption"]), to: entry)
            let row = gtk_list_box_row_new()!
            gtk_list_box_row_set_child(row.cast(to: GtkListBoxRow.self), entry)
            gtk_list_box_append(OpaquePointer(list), row)
            rows.append(row.cast(to: GtkListBoxRow.self))
        }
        showsEmptyList(self.messages.isEmpty)
        // The list has the keyboard focus, on the newest message, as a mail app opens.
        if let first = rows.first, gtk_list_box_get_selected_row(OpaquePointer(list)) == nil {
            gtk_list_box_select_row(OpaquePointer(list), first)
            gtk_widget_grab_focus(first.cast(to: GtkWidget.self))
        }
    }

    var selectedMessage: MailMessage? {
        guard let row = gtk_list_box_get_selected_row(OpaquePointer(list)) else { return nil }
        let index = Int(gtk_list_box_row_get_index(row))
        return messages.indices.contains(index) ? messages[index] : nil
    }

    /// Selects the message with `messageID`; returns whether it is in the list.
    @discardableResult
    func select(messageID: String) -> Bool {
        guard let index = messages.firstIndex(where: { $0.messageID == messageID }) else { return false }
        gtk_list_box_select_row(OpaquePointer(list), rows[index])
        return true
    }

    private func selectionDidChange() {
        let message = selectedMessage
        show(message)
        guard let message else { return }
        if userActivity == nil || userActivity?.isValid == false {
            let activity = UserActivity(activityType: MailActivities.read, center: application.center)
            userActivity = activity
        }
        userActivity?.title = message.subject
        try? userActivity?.setWebpageURL(MailActivities.messageURL(message.messageID))
    }

    private func show(_ message: MailMessage?) {
        Widgets.setLabel(subjectLabel, message?.subject ?? "No message selected")
        Widgets.setLabel(senderLabel, message.map { "\($0.from) — \(FriendlyDate.longText(ofHeader: $0.date))" } ?? "")
        let buffer = gtk_text_view_get_buffer(bodyView.cast(to: GtkTextView.self))
        gtk_text_buffer_set_text(buffer, message?.body ?? "", -1)
        gtk_stack_set_visible_child_name(OpaquePointer(readerStack), message == nil ? "none" : "message")
    }

    /// The vertical scrolling position of the list.
    private var listAdjustment: UnsafeMutablePointer<GtkAdjustment>? {
        gtk_scrolled_window_get_vadjustment(OpaquePointer(listScroller))
    }

    /// The message whose row is at the middle of the visible part of the list.
    private var visibleMiddleMessageID: String? {
        guard let adjustment = listAdjustment else { return nil }
        let middle = gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment) / 2
        guard let row = gtk_list_box_get_row_at_y(OpaquePointer(list), Int32(middle)) else { return nil }
        let index = Int(gtk_list_box_row_get_index(row))
        return messages.indices.contains(index) ? messages[index].messageID : nil
    }

    /// Scrolls so that the row of `messageID` is at the middle of the visible part, once the
    /// list has its size.
    func scroll(toMiddle messageID: String) {
        pendingScrollTarget = messageID
        applyPendingScroll()
    }

    private func applyPendingScroll() {
        guard let target = pendingScrollTarget,
              let index = messages.firstIndex(where: { $0.messageID == target }),
              let adjustment = listAdjustment,
              gtk_adjustment_get_page_size(adjustment) > 0 else { return }
        let row = rows[index].cast(to: GtkWidget.self)
        var y: Double = 0
        var x: Double = 0
        guard gtk_widget_translate_coordinates(row, list, 0, 0, &x, &y) != 0 else { return }
        let height = Double(gtk_widget_get_height(row))
        let page = gtk_adjustment_get_page_size(adjustment)
        gtk_adjustment_set_value(adjustment, y + height / 2 - page / 2)
        pendingScrollTarget = nil
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        guard let message = selectedMessage else { return }
        try? userActivity.encodeUserInfo(ReadingState(messageID: message.messageID,
                                                      visibleMessageID: visibleMiddleMessageID))
    }

    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        guard let state = try? userActivity.decodeUserInfo(ReadingState.self) else { return }
        if select(messageID: state.messageID) {
            scroll(toMiddle: state.visibleMessageID ?? state.messageID)
        } else {
            banner.showError("The message you were reading is not in this mailbox.")
        }
    }
}
