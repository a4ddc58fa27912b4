import Foundation
import Logging

/// Writes log lines to standard error the way the systemd journal reads them: each line
/// starts with its syslog priority in angle brackets (sd-daemon(3): `<3>` error, `<4>`
/// warning, `<5>` notice, `<6>` info, `<7>` debug) and carries no timestamp, since the
/// journal stamps every entry itself.
///
/// batond uses it when ``JournalStream/isStandardError(environment:)`` says its standard
/// error is the journal; elsewhere it keeps swift-log's `StreamLogHandler`. The logger's label
/// is left out too: batond logs under one, and the journal records the program itself.
struct JournalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error { merged["error.message"] = "\(error)" }
        Self.write(Self.format(level: event.level, message: event.message.description, metadata: merged))
    }

    /// The syslog priority the journal files `level` under.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The text written for one message: every line of it with the level's prefix (the
    /// journal makes each line an entry of its own), metadata sorted by key on the first.
    static func format(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        let prefix = "<\(priority(of: level))>"
        let pairs = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var lines = message.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        if !pairs.isEmpty { lines[0] = "[\(pairs.joined(separator: " "))] " + lines[0] }
        return lines.map { prefix + $0 + "\n" }.joined()
    }

    /// Writes `text` to standard error in one `write(2)` where it fits, so that lines of
    /// threads logging at once do not interleave.
    private static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
