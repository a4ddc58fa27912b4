import Foundation

/// Whether standard error is connected to the systemd journal.
///
/// systemd sets `JOURNAL_STREAM` to `DEVICE:INODE` (decimal) of the stream it connects a
/// service's standard output or error to; per systemd.exec(5), a program should use the
/// journal's conventions only when that pair matches its own standard error, since the
/// variable is inherited by children whose output goes elsewhere.
enum JournalStream {
    /// Whether file descriptor 2 is the stream `JOURNAL_STREAM` names in `environment`.
    static func isStandardError(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"], let named = parse(value) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == named.device && UInt64(info.st_ino) == named.inode
    }

    /// The device and inode of a `JOURNAL_STREAM` value, or `nil` when it is not two
    /// decimal numbers separated by a colon.
    static func parse(_ value: String) -> (device: UInt64, inode: UInt64)? {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
        return (device, inode)
    }
}
