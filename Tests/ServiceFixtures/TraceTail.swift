import Foundation

/// Follows a `BATON_TRACE` file as it grows: each ``newEvents()`` returns only the events
/// written since the last call, so a long run reads every line once.
public final class TraceTail {
    public let url: URL
    private var offset: UInt64 = 0
    /// The start of a line whose end is not written yet.
    private var partial = Data()

    public init(_ url: URL) {
        self.url = url
    }

    /// The events of the lines completed since the last call, in order.
    public func newEvents() -> [[String: Any]] {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else {
            return []
        }
        offset += UInt64(data.count)
        partial.append(data)
        guard let end = partial.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let complete = partial[partial.startIndex..<end]
        partial = Data(partial[partial.index(after: end)...])
        return complete.split(separator: UInt8(ascii: "\n")).compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        }
    }
}
