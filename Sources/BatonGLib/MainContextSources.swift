import CGLib
import Foundation

/// Counts of what a long-running process holds, for its status and for soak tests: GLib
/// sources on the default main context and open file descriptors.
public enum MainContextSources {
    /// The sources attached to the default main context and not destroyed yet.
    ///
    /// GLib has no public count, so this learns the highest source id handed out so far (by
    /// attaching an idle source, which gets the next id, and destroying it at once), then asks
    /// `g_main_context_find_source_by_id` about every id below it. Ids are not reused until
    /// they wrap around at 2³², so the cost grows with every source the process ever made: one
    /// hash lookup per id, about 30 ms per million ids on a 2-core CI machine. Call it on the
    /// thread that runs the default main context.
    public static func count() -> Int {
        guard let probe = g_idle_source_new() else { return 0 }
        let highest = g_source_attach(probe, nil)
        g_source_destroy(probe)
        g_source_unref(probe)
        var count = 0
        var id: guint = 1
        while id < highest {
            if g_main_context_find_source_by_id(nil, id) != nil { count += 1 }
            id += 1
        }
        return count
    }
}

/// The file descriptors open in this process.
public enum OpenFileDescriptors {
    /// How many descriptors are open, from `/proc/self/fd`, not counting the one that lists
    /// them; `nil` where `/proc` cannot be read.
    public static func count() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let descriptor = Int32(name), descriptor != own else { continue }
            count += 1
        }
        return count
    }
}
