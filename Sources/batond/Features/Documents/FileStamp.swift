import Glibc

/// A file's identity and state (device, inode, size, modification time), to tell whether it
/// is still the same file, unchanged.
struct FileStamp: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int
    let modifiedNanoseconds: Int

    /// The stamp of the file at `path` (links followed), or `nil` when there is none.
    init?(of path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = status.st_mtim.tv_sec
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
