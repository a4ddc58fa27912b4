import Foundation

extension ChildProcess {
    /// The names of the process's threads now (`/proc/PID/task/*/comm`).
    public var threadNames: [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// libdispatch's worker threads among them: their names end in their queue's
    /// (`com.apple.root.default-qos`, `…user-initiated-qos.overcommit`), cut to 15 bytes.
    /// The first one starts libdispatch's pool monitor, which wakes the process every second.
    public var libdispatchWorkers: [String] {
        threadNames.filter { $0.contains("qos") }
    }
}
