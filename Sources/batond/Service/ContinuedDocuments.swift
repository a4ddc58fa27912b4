/// The files of this device that a paired device's continuation had an app open in place (its
/// document was at the same path here, the same bytes): such a file is never described or
/// sent back to the device that named it, until it changes here (the person worked on it).
///
/// A file is known by its ``FileStamp`` (device, inode, size, modification time), so a
/// sandboxed app's view of it (`/proc/PID/root/…`) is the same file, and a file saved since
/// is another. Kept while batond runs, at most ``capacity`` of them, the oldest dropped first.
@MainActor
final class ContinuedDocuments {
    private struct Opened {
        let stamp: FileStamp
        let deviceID: String
    }

    /// The most files remembered.
    static let capacity = 256

    private var opened: [Opened] = []

    /// Remembers that the continuation of `deviceID`'s activity opened the file at `path`.
    func remember(fileAt path: String, namedBy deviceID: String) {
        guard let stamp = FileStamp(of: path) else { return }
        opened.removeAll { $0.stamp == stamp && $0.deviceID == deviceID }
        opened.append(Opened(stamp: stamp, deviceID: deviceID))
        if opened.count > Self.capacity { opened.removeFirst(opened.count - Self.capacity) }
    }

    /// Whether the file at `path` is one a continuation of `deviceID`'s opened, unchanged
    /// since.
    func isUnchanged(fileAt path: String, namedBy deviceID: String) -> Bool {
        guard let stamp = FileStamp(of: path) else { return false }
        return opened.contains { $0.stamp == stamp && $0.deviceID == deviceID }
    }
}
