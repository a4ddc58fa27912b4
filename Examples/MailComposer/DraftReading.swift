import Baton
import Foundation

/// A draft read from the `userInfo` of a compose activity, one field at a time.
///
/// This is the only way the app reads a draft: continued from another instance or device,
/// written by hand (`baton continue --file`), or restored after a relaunch. A field of an
/// unexpected type never costs the others: every field that can be read is kept, the others
/// take their defaults and are listed in ``unreadableFields``. Missing and `null` fields
/// take their defaults quietly, and a draft id that is not a UUID gets a new one.
///
/// Recipients (`to`, `cc`) are text, or a list of addresses joined with ", ".
struct DraftReading: Equatable {
    /// The draft, with every field that could be read.
    var draft: DraftState
    /// The fields that could not be read, in the order the window shows them.
    var unreadableFields: [UnreadableDraftField] = []

    init(userInfo: [String: UserInfoValue]) {
        draft = DraftState(draftID: userInfo["draftID"]?.uuidValue ?? UUID())
        if let version = userInfo["version"]?.intValue { draft.version = version }
        draft.to = readRecipients("to", from: userInfo)
        draft.cc = readRecipients("cc", from: userInfo)
        draft.subject = readText("subject", from: userInfo) ?? ""
        draft.body = readText("body", from: userInfo) ?? ""
        draft.cursor = readCursor(from: userInfo, bodyLength: draft.body.unicodeScalars.count)
        draft.inReplyTo = readText("inReplyTo", from: userInfo)
        draft.attachments = readAttachments(from: userInfo)
    }

    /// The attachments that can be read (name, size, SHA-256), at most
    /// ``Attachment/maximumCount``; the field is unreadable when any entry is not one.
    private mutating func readAttachments(from userInfo: [String: UserInfoValue]) -> [Attachment] {
        switch userInfo["attachments"] {
        case nil, .null?:
            return []
        case .array(let items)?:
            let attachments = items.compactMap(Attachment.init)
            if attachments.count != items.count || attachments.count > Attachment.maximumCount {
                unreadableFields.append(UnreadableDraftField(key: "attachments",
                                                             expected: "a list of files, each with a name, size and sha256"))
            }
            return Array(attachments.prefix(Attachment.maximumCount))
        default:
            unreadableFields.append(UnreadableDraftField(key: "attachments",
                                                         expected: "a list of files, each with a name, size and sha256"))
            return []
        }
    }

    /// What to tell the person about the fields that could not be read, or nil if all could.
    var problemDescription: String? {
        guard !unreadableFields.isEmpty else { return nil }
        let fields = unreadableFields.map { "\($0.key) (expected \($0.expected))" }.joined(separator: ", ")
        return "Some of this draft could not be read: \(fields)"
    }

    private mutating func readRecipients(_ key: String, from userInfo: [String: UserInfoValue]) -> String {
        switch userInfo[key] {
        case nil, .null?:
            return ""
        case .string(let text)?:
            return text
        case .array(let items)?:
            let addresses = items.compactMap(\.stringValue)
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }
            if items.contains(where: { $0.stringValue == nil }) {
                unreadableFields.append(UnreadableDraftField(key: key, expected: "text or a list of addresses"))
            }
            return addresses.joined(separator: ", ")
        default:
            unreadableFields.append(UnreadableDraftField(key: key, expected: "text or a list of addresses"))
            return ""
        }
    }

    private mutating func readText(_ key: String, from userInfo: [String: UserInfoValue]) -> String? {
        switch userInfo[key] {
        case nil, .null?:
            return nil
        case .string(let text)?:
            return text
        default:
            unreadableFields.append(UnreadableDraftField(key: key, expected: "text"))
            return nil
        }
    }

    /// The cursor's offset in the body, within the body; the end of the body if not given.
    private mutating func readCursor(from userInfo: [String: UserInfoValue], bodyLength: Int) -> Int {
        let value = userInfo["cursor"]
        if value == nil || value == .null { return bodyLength }
        let offset = value?.intValue ?? value?.doubleValue.flatMap { Int(exactly: $0) }
        guard let offset else {
            unreadableFields.append(UnreadableDraftField(key: "cursor", expected: "a number"))
            return bodyLength
        }
        return min(max(offset, 0), bodyLength)
    }
}

/// A field of a draft that could not be read, and what it should have held.
struct UnreadableDraftField: Equatable {
    /// The field's key in `userInfo`, such as `cc`.
    var key: String
    /// What the field should hold, in plain words, such as "text".
    var expected: String
}
