import Foundation
import Glibc

/// Files only the user may read: identities and pairings, in a folder only the user may enter.
///
/// Neither the folder nor its files are ever reached through a symbolic link, and modes are
/// set on open descriptors, never on paths: a link planted in their place could otherwise
/// make batond change the mode of another file, or use an identity it did not make.
public enum PrivateFiles {
    /// The largest file ``read(_:)`` accepts.
    public static let maximumSize = 1 << 20

    /// Creates `directory` (and its parents) if needed, and makes it 0700.
    ///
    /// - Throws: ``PrivateFileError`` when `directory` is a symbolic link, not a folder, or
    ///   not the user's: it is left as it is.
    public static func makeDirectory(_ directory: URL) throws {
        let path = directory.path
        var status = stat()
        if lstat(path, &status) != 0 {
            guard errno == ENOENT else { throw PrivateFileError(path, systemError: errno) }
            try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw PrivateFileError(path, systemError: errno) }
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            guard lstat(path, &status) == 0 else { throw PrivateFileError(path, systemError: error) }
            throw PrivateFileError(path, kind: status.st_mode, expected: "a folder")
        }
        defer { close(descriptor) }
        try checkOwned(descriptor, path, type: S_IFDIR, expected: "a folder")
        guard fchmod(descriptor, 0o700) == 0 else { throw PrivateFileError(path, systemError: errno) }
    }

    /// The contents of the private file `file`, made 0600 first.
    ///
    /// It is opened without following a symbolic link, and must be a regular file owned
    /// by the user, of at most ``maximumSize`` bytes.
    ///
    /// - Returns: the contents, or `nil` when there is no file.
    /// - Throws: ``PrivateFileError`` for a symbolic link, anything but a regular file of
    ///   the user's, a larger file, or one that cannot be read: it is left as it is.
    public static func read(_ file: URL) throws -> Data? {
        let path = file.path
        // O_NONBLOCK: a FIFO in its place is refused below rather than waited on.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            var status = stat()
            guard error == ELOOP, lstat(path, &status) == 0 else { throw PrivateFileError(path, systemError: error) }
            throw PrivateFileError(path, kind: status.st_mode, expected: "a regular file")
        }
        defer { close(descriptor) }
        let status = try checkOwned(descriptor, path, type: S_IFREG, expected: "a regular file")
        guard status.st_size <= maximumSize else {
            throw PrivateFileError(path, "is larger than \(maximumSize >> 20) MiB")
        }
        guard fchmod(descriptor, 0o600) == 0 else { throw PrivateFileError(path, systemError: errno) }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw PrivateFileError(path, systemError: errno) }
            if count == 0 { return contents }
            contents.append(contentsOf: buffer[..<count])
            guard contents.count <= maximumSize else {
                throw PrivateFileError(path, "is larger than \(maximumSize >> 20) MiB")
            }
        }
    }

    /// Throws unless the open `descriptor` is of `type` (`S_IFDIR`, `S_IFREG`) and the user's.
    @discardableResult
    private static func checkOwned(_ descriptor: Int32, _ path: String, type: mode_t,
                                   expected: String) throws -> stat {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw PrivateFileError(path, systemError: errno) }
        guard status.st_mode & S_IFMT == type else {
            throw PrivateFileError(path, kind: status.st_mode, expected: expected)
        }
        guard status.st_uid == geteuid() else {
            throw PrivateFileError(path, "is owned by another user (uid \(status.st_uid)), not by this one (uid \(geteuid()))")
        }
        return status
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
}

/// A private file or folder that cannot be used: the path and why.
public struct PrivateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(_ path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The system's reason for the error number `code`.
    init(_ path: String, systemError code: Int32) {
        self.init(path, String(cString: strerror(code)))
    }

    /// A path of the wrong kind: a symbolic link, a FIFO, a device, a folder or a file.
    init(_ path: String, kind mode: mode_t, expected: String) {
        let kind: String
        switch mode & S_IFMT {
        case S_IFLNK: kind = "a symbolic link, which is never followed here"
        case S_IFDIR: kind = "a folder"
        case S_IFREG: kind = "a regular file"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        default: kind = "a device"
        }
        self.init(path, "is \(kind), not \(expected): remove it or put \(expected) in its place")
    }

    public var description: String { "\(path): \(reason)" }
}
