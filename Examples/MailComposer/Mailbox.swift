import Foundation

/// One mail message, as the app shows and stores it.
struct MailMessage: Hashable, Sendable {
    var messageID: String
    var from: String
    var to: String
    var cc: String = ""
    var subject: String
    var date: String
    var inReplyTo: String?
    var body: String
}

/// Reads and writes the mbox format (mboxrd quoting: body lines that start with any number
/// of `>` followed by `From ` get one more `>`).
enum Mbox {
    static func parse(_ text: String) -> [MailMessage] {
        var messages: [MailMessage] = []
        var current: [Substring] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.hasPrefix("From ") {
                if let message = message(from: current) { messages.append(message) }
                current = []
            } else {
                current.append(line)
            }
        }
        if let message = message(from: current) { messages.append(message) }
        return messages
    }

    private static func message(from lines: [Substring]) -> MailMessage? {
        guard let blank = lines.firstIndex(where: \.isEmpty) else { return nil }
        var headers: [String: String] = [:]
        for line in lines[..<blank] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var bodyLines = lines[(blank + 1)...].map { unquote($0) }
        while bodyLines.last?.isEmpty == true { bodyLines.removeLast() }
        guard let messageID = headers["message-id"], !messageID.isEmpty else { return nil }
        return MailMessage(
            messageID: messageID, from: headers["from"] ?? "", to: headers["to"] ?? "",
            cc: headers["cc"] ?? "", subject: headers["subject"] ?? "", date: headers["date"] ?? "",
            inReplyTo: headers["in-reply-to"], body: bodyLines.joined(separator: "\n"))
    }

    private static func unquote(_ line: Substring) -> String {
        let quotes = line.prefix { $0 == ">" }
        if !quotes.isEmpty, line.dropFirst(quotes.count).hasPrefix("From ") {
            return String(line.dropFirst())
        }
        return String(line)
    }

    /// A header value on one line: line breaks (which would forge headers or messages)
    /// become spaces.
    private static func header(_ value: String) -> String {
        String(value.map { $0.isNewline ? " " : $0 })
    }

    static func format(_ message: MailMessage, envelopeDate: Date = Date()) -> String {
        let address = message.from.split(separator: "<").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "> ")) }
            ?? message.from
        var text = "From \(header(address.isEmpty ? "MAILER-DAEMON" : address)) \(envelopeDate.formatted(.iso8601))\n"
        text += "Message-ID: \(header(message.messageID))\n"
        text += "From: \(header(message.from))\nTo: \(header(message.to))\n"
        if !message.cc.isEmpty { text += "Cc: \(header(message.cc))\n" }
        text += "Subject: \(header(message.subject))\nDate: \(header(message.date))\n"
        if let inReplyTo = message.inReplyTo { text += "In-Reply-To: \(header(inReplyTo))\n" }
        text += "\n"
        for line in message.body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let quotes = line.prefix { $0 == ">" }
            text += line.dropFirst(quotes.count).hasPrefix("From ") ? ">\(line)\n" : "\(line)\n"
        }
        return text + "\n"
    }
}
