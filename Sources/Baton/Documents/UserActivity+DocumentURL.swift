import Foundation

extension UserActivity {
    /// The `userInfo` key under which the Baton service names the device a document came
    /// from, when the file was not on this device and it saved a copy for the continuation
    /// (in "Continued from ‹device›" under the documents folder). The document URL then names
    /// the copy: the app tells the person it is one.
    nonisolated public static let documentCopiedFromKey = "BatonDocumentCopiedFrom"

    /// The document a `userInfo` names under ``documentURLKey`` (a URL, or its text), if any.
    nonisolated public static func documentURL(in userInfo: [String: UserInfoValue]) -> URL? {
        switch userInfo[documentURLKey] {
        case .url(let url)?: url
        case .string(let text)?: URL(string: text)
        default: nil
        }
    }

    /// The device the service copied this activity's document from, when it did
    /// (``documentCopiedFromKey``).
    public var documentCopiedFrom: String? {
        if case .string(let device)? = userInfo[Self.documentCopiedFromKey], !device.isEmpty { return device }
        return nil
    }
}
