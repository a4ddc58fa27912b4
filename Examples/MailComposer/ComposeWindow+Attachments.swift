import Baton
import BatonGtk
import CGtk
import ExampleSupport
import Foundation
import Logging

/// A draft's attachments: the row that lists them, the file chooser, and their bytes
/// arriving from the device the draft came from.
extension ComposeWindow {
    func buildAttachmentsRow() {
        let flow = OpaquePointer(attachmentsBox)
        gtk_flow_box_set_selection_mode(flow, GTK_SELECTION_NONE)
        gtk_flow_box_set_max_children_per_line(flow, 4)
        gtk_flow_box_set_column_spacing(flow, 6)
        gtk_flow_box_set_row_spacing(flow, 6)
        Widgets.margins(attachmentsBox, 12)
        gtk_widget_set_margin_top(attachmentsBox, 0)
        gtk_widget_set_visible(attachmentsBox, 0)
    }

    /// Lists the attachments again: each with its size and a remove button; one whose bytes
    /// are on their way or missing says so.
    func refreshAttachmentsRow() {
        let flow = OpaquePointer(attachmentsBox)
        while let child = gtk_widget_get_first_child(attachmentsBox) {
            gtk_flow_box_remove(flow, child)
        }
        for attachment in attachments {
            let chip = Widgets.box(.horizontal, spacing: 6, classes: ["card"])
            gtk_widget_set_halign(chip, GTK_ALIGN_START)
            let icon = gtk_image_new_from_icon_name(missingAttachments[attachment.sha256] != nil
                                                    ? "dialog-warning-symbolic" : "mail-attachment-symbolic")!
            gtk_widget_set_margin_start(icon, 8)
            Widgets.append(icon, to: chip)
            var state = attachment.sizeDescription
            if receivingAttachments.contains(attachment.sha256) { state = "receiving…" }
            if missingAttachments[attachment.sha256] != nil { state = "missing" }
            let label = Widgets.label("\(attachment.name) (\(state))",
                                      classes: missingAttachments[attachment.sha256] != nil ? ["error"] : [])
            gtk_label_set_ellipsize(OpaquePointer(label), PANGO_ELLIPSIZE_MIDDLE)
            gtk_label_set_max_width_chars(OpaquePointer(label), 28)
            if let reason = missingAttachments[attachment.sha256] { gtk_widget_set_tooltip_text(label, reason) }
            Widgets.append(label, to: chip)
            let remove = Widgets.button(icon: "window-close-symbolic", tooltip: "Remove \(attachment.name)",
                                        classes: ["flat", "circular"])
            GObjectSignals.connect(UnsafeMutableRawPointer(remove), "clicked") { [weak self] in self?.remove(attachment) }
            Widgets.append(remove, to: chip)
            gtk_flow_box_append(flow, chip)
        }
        gtk_widget_set_visible(attachmentsBox, attachments.isEmpty ? 0 : 1)
    }

    /// Attaches the files at `urls` (copied into the store); says in the banner which could
    /// not be attached.
    func attach(_ urls: [URL]) {
        var problems: [String] = []
        for url in urls {
            do {
                let attachment = try store.add(fileAt: url)
                guard !attachments.contains(attachment) else { continue }
                guard attachments.count < Attachment.maximumCount else {
                    problems.append("a draft holds at most \(Attachment.maximumCount) attachments")
                    break
                }
                attachments.append(attachment)
            } catch {
                problems.append("\(error)")
            }
        }
        refreshAttachmentsRow()
        userActivity?.needsSave = true
        if !problems.isEmpty { banner.showError("Could not attach: \(problems.joined(separator: "; ")).") }
    }

    private func remove(_ attachment: Attachment) {
        attachments.removeAll { $0 == attachment }
        missingAttachments[attachment.sha256] = nil
        refreshAttachmentsRow()
        userActivity?.needsSave = true
        if missingAttachments.isEmpty && receivingAttachments.isEmpty { banner.hide() }
    }

    /// Opens the desktop's file chooser to attach files.
    func chooseAttachments() {
        fileChooser.show(over: gtkWindow, title: "Attach Files", accept: "_Attach", purpose: .open(multiple: true)) {
            [weak self] urls in
            self?.attach(urls)
        }
    }

    /// Marks the attachments whose bytes are neither here nor on their way.
    func noteMissingAttachments() {
        for attachment in attachments where !store.holds(attachment) && !receivingAttachments.contains(attachment.sha256) {
            if missingAttachments[attachment.sha256] == nil {
                missingAttachments[attachment.sha256] = "its file is not on this device"
            }
        }
        refreshAttachmentsRow()
    }

    /// What to tell the person about the window's missing attachments, or nil if none are.
    var missingDescription: String? {
        Self.describeMissing(attachments.compactMap { attachment in
            missingAttachments[attachment.sha256].map { (attachment, $0) }
        })
    }

    /// "Missing attachments: NAME (WHY), …", or nil for none.
    static func describeMissing(_ missing: [(attachment: Attachment, reason: String)]) -> String? {
        guard !missing.isEmpty else { return nil }
        return "Missing attachments: " + missing.map { "\($0.attachment.name) (\($0.reason))" }.joined(separator: ", ")
    }

    /// Fetches the attachments of `activity` (a draft being continued) that this device
    /// lacks, through a continuation stream: call it in `continue…`, before the restoration
    /// handler. Progress shows in the banner; a draft whose files do not all arrive says
    /// which are missing.
    func receiveAttachments(of activity: UserActivity) {
        let store = store
        let wanted = DraftReading(userInfo: activity.userInfo).draft.attachments.filter { !store.holds($0) }
        guard !wanted.isEmpty else { return }
        let logger = Logger(label: "mailcomposer")
        for attachment in wanted { receivingAttachments.insert(attachment.sha256) }
        let total = wanted.reduce(0) { $0 + $1.size }
        let totalText = ByteCountFormatter.string(fromByteCount: Int64(total), countStyle: .file)
        banner.showProgress("Receiving \(wanted.count) attachment\(wanted.count == 1 ? "" : "s") (\(totalText))…")
        activity.getContinuationStreams { [weak self] stream, error in
            guard let self else { return stream?.close() ?? () }
            guard let stream else {
                return finishReceiving(AttachmentTransfer.Outcome(
                    missing: wanted.map { ($0, "the other device could not send it: \(error.map { "\($0)" } ?? "no stream")") }),
                    logger: logger)
            }
            Task { @MainActor [weak self] in
                var shown = 0
                let outcome = await AttachmentTransfer.receive(wanted, over: stream, into: store) { received in
                    // Whole percents only: the banner changes at most a hundred times.
                    let percent = total > 0 ? received * 100 / total : 100
                    guard percent != shown else { return }
                    shown = percent
                    let receivedText = ByteCountFormatter.string(fromByteCount: Int64(received), countStyle: .file)
                    self?.banner.showProgress("Receiving attachments: \(receivedText) of \(totalText)")
                }
                self?.finishReceiving(outcome, logger: logger)
            }
        }
    }

    private func finishReceiving(_ outcome: AttachmentTransfer.Outcome, logger: Logger) {
        for attachment in outcome.received {
            receivingAttachments.remove(attachment.sha256)
            missingAttachments[attachment.sha256] = nil
        }
        for (attachment, reason) in outcome.missing {
            receivingAttachments.remove(attachment.sha256)
            missingAttachments[attachment.sha256] = reason
        }
        refreshAttachmentsRow()
        userActivity?.needsSave = true
        logger.info("received \(outcome.received.count) attachment(s): \(outcome.received.map(\.name).joined(separator: ", "))")
        // Named from the outcome: when no stream could be opened this runs before the
        // restoration fills the window's list.
        if let missing = Self.describeMissing(outcome.missing) {
            logger.warning("\(missing)")
            banner.showError(missing)
        } else {
            // News that passes: a toast; the banner's progress goes.
            banner.hide()
            showToast("Received \(outcome.received.count) attachment\(outcome.received.count == 1 ? "" : "s")")
        }
    }
}
