import Foundation

/// Files only the user may read: identities and pairings.
public enum PrivateFiles {
    /// Creates `directory` (and its parents) if needed, and makes it 0700.
    public static func makeDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    /// Writes `data` to `file` through a 0600 temporary file renamed over it, so a reader
    /// sees the old or the new contents, never a part, and never with wider permissions.
    public static func write(_ data: Data, to file: URL) throws {
        let temporary = try writeTemporary(data, beside: file)
        guard rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    /// Writes `data` to `file` unless it exists, as one step: of two processes creating the
    /// same file at once, one writes it and the other is told it exists.
    ///
    /// - Returns: `false`, writing nothing, when `file` exists.
    public static func create(_ data: Data, at file: URL) throws -> Bool {
        let temporary = try writeTemporary(data, beside: file)
        defer { unlink(temporary.path) }
        guard link(temporary.path, file.path) == 0 else {
            if errno == EEXIST { return false }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        return true
    }

    /// A new 0600 file beside `file` holding `data`, flushed to disk. It is created afresh
    /// (never through a link left in its place) and made 0600 before anything is written.
    private static func writeTemporary(_ data: Data, beside file: URL) throws -> URL {
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
        unlink(temporary.path)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            guard fchmod(descriptor, 0o600) == 0 else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary.path)
            throw error
        }
        return temporary
    }

    /// Makes an existing file 0600.
    public static func restrict(_ file: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }
}
