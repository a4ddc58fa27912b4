import BatonPeer
import Foundation
import Glibc

/// Files an app here copied (a file manager's `text/uri-list` or
/// `x-special/gnome-copied-files`), as this device offers them to a paired device that pastes
/// them: only regular files in the home folder, none under a hidden folder, each of at most
/// 64 MiB, at most 64 files and 256 MiB in all; read only when a device pastes, window by
/// window, and only if each is still the very file that was copied.
struct CopiedFiles: Sendable {
    /// One copied file: where it is, the name it is offered under, and what it was when copied.
    struct File: Sendable {
        let path: String
        let name: String
        let size: UInt64
        let device: UInt64
        let inode: UInt64
        /// When it was last written, in nanoseconds.
        let modified: Int64
    }

    let files: [File]

    /// The types apps copy files as, the first preferred.
    static let listTypes = ["x-special/gnome-copied-files", "text/uri-list"]
    /// The longest file list read from the clipboard.
    static let maximumListSize = 64 << 10

    /// The list the pasting device fetches: names (made unique) and sizes.
    var manifest: PeerClipboardFiles {
        PeerClipboardFiles(files: files.map { PeerClipboardFiles.File(name: $0.name, size: $0.size) })
    }

    /// The local files a file list of `type` names; `nil` when it names no file at all (a list
    /// of links to web pages, announced as it is). A list naming a file it cannot say as a
    /// local path (another host's, or beside links) gives no path, so that
    /// nothing of it is announced, not even as a list of links.
    static func paths(inList bytes: [UInt8], type: String) -> [String]? {
        var lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        if type == listTypes[0], let first = lines.first, first == "copy" || first == "cut" { lines.removeFirst() }
        let uris = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") && !$0.isEmpty }
        guard uris.contains(where: { $0.lowercased().hasPrefix("file:") }) else { return nil }
        var paths: [String] = []
        for uri in uris {
            guard let url = URL(string: uri), url.isFileURL,
                  url.host == nil || url.host == "" || url.host == "localhost" else { return [] }
            paths.append(url.path)
        }
        return paths
    }

    /// The files at `paths`, checked now.
    ///
    /// - Throws: ``CopiedFilesError`` saying which rule a path breaks (never naming it).
    init(paths: [String], home: String) throws {
        guard !paths.isEmpty else { throw CopiedFilesError("a file named so that it cannot be found here, or beside links") }
        guard paths.count <= PeerClipboardFiles.maximumFiles else { throw CopiedFilesError("more than \(PeerClipboardFiles.maximumFiles) files") }
        var files: [File] = []
        var total: UInt64 = 0
        for path in paths {
            guard RecentList.isInsideVisibleFolder(path, of: home) else {
                throw CopiedFilesError("a file outside the home folder or in a hidden folder")
            }
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                throw CopiedFilesError("a folder, a link or another file that is not a regular one")
            }
            let size = UInt64(status.st_size)
            guard size <= PeerClipboardFiles.maximumFileSize else { throw CopiedFilesError("a file over 64 MiB") }
            total += size
            var name = (path as NSString).lastPathComponent
            var number = 1
            while files.contains(where: { $0.name == name }) {
                number += 1
                name = CopiesFolder.candidate((path as NSString).lastPathComponent, number: number)
            }
            files.append(File(path: path, name: name, size: size, device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
                              modified: Self.nanoseconds(status.st_mtim)))
        }
        guard total <= PeerClipboardFiles.maximumTotalSize else { throw CopiedFilesError("more than 256 MiB in all") }
        self.files = files
    }

    /// The window of file `index` from `offset`: at most ``PeerClipboardOffer/maximumWindow``
    /// bytes.
    ///
    /// - Throws: ``CopiedFilesError`` when the file is gone, or is no longer the file copied
    ///   (replaced, or its size changed).
    func window(of index: Int, from offset: Int) throws -> [UInt8] {
        guard files.indices.contains(index) else { throw CopiedFilesError("no such file") }
        let file = files[index]
        guard offset <= Int(file.size) else { throw CopiedFilesError("past the file's end") }
        let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw CopiedFilesError("the file can no longer be opened") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, UInt64(status.st_dev) == file.device,
              UInt64(status.st_ino) == file.inode, UInt64(status.st_size) == file.size,
              Self.nanoseconds(status.st_mtim) == file.modified else {
            throw CopiedFilesError("the file changed since it was copied")
        }
        let count = min(PeerClipboardOffer.maximumWindow, Int(file.size) - offset)
        var bytes = [UInt8](repeating: 0, count: count)
        var read = 0
        while read < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { pread(descriptor, $0 + read, count - read, off_t(offset + read)) } ?? -1
            }
            guard got > 0 else { throw CopiedFilesError("the file could not be read") }
            read += got
        }
        return bytes
    }

    private static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// A file list of `type` naming `urls`, as file managers paste it.
    static func list(of urls: [URL], as type: String) -> [UInt8] {
        let uris = urls.map { $0.absoluteString }
        return Array((type == listTypes[0] ? "copy\n" + uris.joined(separator: "\n") : uris.map { $0 + "\r\n" }.joined()).utf8)
    }
}

/// Why copied files are not offered, or a pasted one not read; never naming a file.
struct CopiedFilesError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
