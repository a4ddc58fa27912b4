import Baton
import Foundation

/// The app's activity types and what their `userInfo` holds.
enum MailActivities {
    static let compose = "org.example.mail.compose"
    static let read = "org.example.mail.read"
    static let webmail = "https://mail.example.org"

    static func draftURL(_ draftID: UUID) -> URL? {
        URL(string: "\(webmail)/drafts/\(draftID.uuidString.lowercased())")
    }

    static func messageURL(_ messageID: String) -> URL? {
        let bare = messageID.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
        let encoded = bare.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
        return encoded.flatMap { URL(string: "\(webmail)/messages/\($0)") }
    }
}

/// The `userInfo` of a compose activity. `version` lets later versions read older drafts.
/// Drafts are written with `Encodable` and read only with ``DraftReading``, field by field.
struct DraftState: Encodable, Equatable {
    var version = 1
    var draftID: UUID
    var to = ""
    var cc = ""
    var subject = ""
    var body = ""
    /// The cursor's offset in the body, in characters.
    var cursor = 0
    /// The Message-ID of the message this draft replies to.
    var inReplyTo: String?
    /// The attached files: names, sizes and digests (the bytes travel through a
    /// continuation stream).
    var attachments: [Attachment] = []

    init(version: Int = 1, draftID: UUID, to: String = "", cc: String = "", subject: String = "", body: String = "",
         cursor: Int = 0, inReplyTo: String? = nil, attachments: [Attachment] = []) {
        (self.version, self.draftID, self.to, self.cc, self.subject) = (version, draftID, to, cc, subject)
        (self.body, self.cursor, self.inReplyTo, self.attachments) = (body, cursor, inReplyTo, attachments)
    }
}

/// The `userInfo` of a read activity: the message shown, and the message at the middle of
/// the visible part of the list (not a pixel offset, so it survives other screen sizes).
struct ReadingState: Codable, Equatable {
    var version = 1
    var messageID: String
    var visibleMessageID: String?
}
