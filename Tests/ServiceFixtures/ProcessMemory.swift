import Foundation

/// A process's resident memory, from `/proc/PID/status`, in KiB.
public struct ProcessMemory: Sendable {
    /// `VmRSS`: all resident pages.
    public let resident: Int
    /// `RssAnon`: resident anonymous pages (the heap and stacks, no mapped files).
    public let anonymous: Int

    /// Reads it for `pid`; `nil` when the process is gone or `/proc` says otherwise.
    public init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.flatMap { Int($0) }
            fields[String(parts[0])] = value
        }
        guard let resident = fields["VmRSS"], let anonymous = fields["RssAnon"] else { return nil }
        self.resident = resident
        self.anonymous = anonymous
    }
}
