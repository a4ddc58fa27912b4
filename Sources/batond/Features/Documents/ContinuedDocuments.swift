import BatonGLib

/// The files a paired device's continuation had an app open: its document at the same path
/// here (in place), or the copy Syncthing or the link brought.
///
/// - A file opened in place is never described or sent back to the device that named it
///   until it changes here (the person worked on it).
/// - None of them is described to that device once its path leads elsewhere than it did (a
///   link swapped in for the file or a folder above it, by a synced folder, say): the device
///   would otherwise read whatever the link points to.
///
/// A file is known by its ``FileStamp`` (device, inode, size, modification time), so a
/// sandboxed app's view of it (`/proc/PID/root/…`) is the same file, and a file saved since
/// is another; and by its path with links resolved. Kept while batond runs, at most
/// ``capacity`` of them, the oldest dropped first.
@MainActor
final class ContinuedDocuments {
    private struct Opened {
        /// The file as it was when the app was given it.
        let stamp: FileStamp
        /// The device whose continuation opened it.
        let deviceID: String
        /// The path the app was given, and where it led then, links resolved.
        let path: String
        let resolved: String
        /// Whether the app opened the file in place (not a copy).
        let inPlace: Bool
    }

    /// The most files remembered.
    static let capacity = 256

    private var opened: [Opened] = []

    /// Remembers that the continuation of `deviceID`'s activity opened the file at `path`,
    /// `inPlace` when it was this device's own file at the path the device named.
    func remember(fileAt path: String, namedBy deviceID: String, inPlace: Bool) {
        guard let stamp = FileStamp(of: path) else { return }
        opened.removeAll { ($0.stamp == stamp || $0.path == path) && $0.deviceID == deviceID }
        opened.append(Opened(stamp: stamp, deviceID: deviceID, path: path,
                             resolved: ProcessExecutable.canonical(path), inPlace: inPlace))
        if opened.count > Self.capacity { opened.removeFirst(opened.count - Self.capacity) }
    }

    /// Why the file the app sees at `path` (through `view`, its `/proc/PID/root/…` path) may
    /// not be described to `deviceID`, or `nil` when it may.
    func refusal(ofFileAt path: String, seenAt view: String, to deviceID: String) -> String? {
        let mine = opened.filter { $0.deviceID == deviceID }
        if let placed = mine.first(where: { $0.path == path }), ProcessExecutable.canonical(view) != placed.resolved {
            return "its path no longer leads where it did when that device's continuation opened it"
        }
        guard let stamp = FileStamp(of: view) else { return nil }
        if mine.contains(where: { $0.inPlace && $0.stamp == stamp }) {
            return "that device's own continuation opened it here, and it has not changed since"
        }
        return nil
    }
}
