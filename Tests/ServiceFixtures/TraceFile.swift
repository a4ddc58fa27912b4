import Foundation

/// Reads a `BATON_TRACE` file: one JSON object per line.
public enum TraceFile {
    /// The events written so far, optionally only those of process `pid`.
    public static func events(at url: URL, pid: Int32? = nil) -> [[String: Any]] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return pid.map { (event["pid"] as? Int) == Int($0) } ?? true ? event : nil
        }
    }
}
