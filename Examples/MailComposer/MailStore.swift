import BatonGtk
import Foundation

/// The app's local mailbox: an inbox copied from the app's resources on first run, and a
/// Sent folder that sent messages are appended to. Both are mbox files in the data folder,
/// by default `$XDG_DATA_HOME/org.example.MailComposer/`.
struct MailStore {
    let directory: URL

    var inboxURL: URL { directory.appendingPathComponent("inbox.mbox") }
    var sentURL: URL { directory.appendingPathComponent("sent.mbox") }

    static func defaultDirectory(applicationID: String) -> URL {
        XDGDirectories.dataHome.appendingPathComponent(applicationID, isDirectory: true)
    }

    /// Creates the data folder and copies the sample inbox there if it has no inbox yet.
    func prepare(sampleInbox: URL?) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
        if !fileManager.fileExists(atPath: inboxURL.path), let sampleInbox {
            try fileManager.copyItem(at: sampleInbox, to: inboxURL)
        }
    }

    func inbox() throws -> [MailMessage] {
        guard FileManager.default.fileExists(atPath: inboxURL.path) else { return [] }
        return Mbox.parse(try String(contentsOf: inboxURL, encoding: .utf8))
    }

    func sent() throws -> [MailMessage] {
        guard FileManager.default.fileExists(atPath: sentURL.path) else { return [] }
        return Mbox.parse(try String(contentsOf: sentURL, encoding: .utf8))
    }

    /// Appends `message` to the Sent folder.
    func appendSent(_ message: MailMessage) throws {
        let data = Data(Mbox.format(message).utf8)
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: sentURL.path) {
            guard fileManager.createFile(atPath: sentURL.path, contents: nil,
                                         attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: sentURL.path])
            }
        }
        let handle = try FileHandle(forWritingTo: sentURL)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }
}
