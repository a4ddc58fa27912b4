import Glibc

/// Lines on standard error, which browsers keep in their own log (Chromium's standard error,
/// Firefox's browser console): standard output carries messages to the extension only.
///
/// Page addresses and titles are never written, as the browser's log may end up in the
/// system journal.
enum HostLog {
    /// The program's name, before every line.
    static let prefix = "baton-browser-host"

    /// Writes `message` as one line, in one `write` so lines of two threads never mix.
    static func write(_ message: String) {
        let line = Array("\(prefix): \(message.replacingOccurrences(of: "\n", with: " "))\n".utf8)
        var written = 0
        while written < line.count {
            let count = line[written...].withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}
