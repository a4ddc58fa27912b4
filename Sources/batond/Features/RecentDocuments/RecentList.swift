import BatonBus
import BatonGLib
import CGLib
import Foundation
import Glibc

/// The desktop's shared list of recently used files (`$XDG_DATA_HOME/recently-used.xbel`, the
/// GBookmarkFile format GTK's `GtkRecentManager` and file chooser write), read for what a
/// person has open in apps that do not adopt Baton: Document Viewer, gedit, LibreOffice.
///
/// Only what may be offered is kept: a local, regular file in the home folder, not under a
/// hidden folder, not marked private, of at most ``maximumDocumentSize``, with the app that
/// used it last and when. The list is outside input (any app of the session writes it):
/// a file over ``maximumListSize``, a link, or one that is not XML reads as nothing, and
/// entries whose path, app or command hold a character no published text may hold (a
/// control character, a line separator, a bidirectional override: `UnsafeCharacters`), or
/// whose app's name or command is longer than ``maximumNameLength`` or
/// ``maximumCommandLength``, are left out.
struct RecentList: Equatable, Sendable {
    /// One file of the list and the app that used it last.
    struct Entry: Equatable, Sendable {
        /// The file's absolute path.
        let path: String
        /// Its MIME type, as the app recorded it.
        let mimeType: String?
        /// The app's name in the list: its desktop entry's id or name ("Document Viewer", "gedit").
        let appName: String
        /// The command the app recorded (`'gedit %u'`, `evince %u`).
        let exec: String
        /// When that app last used the file (seconds since 1970).
        let usedAt: Double

        /// The program the command runs, without its folders ("gedit"). GTK records its apps'
        /// commands quoted whole (`'evince %u'`), so a first word holding spaces is split again.
        var program: String? {
            guard var program = ExecLine.program(of: exec) else { return nil }
            if program.contains(" "), let inner = ExecLine.program(of: program) { program = inner }
            let name = (program as NSString).lastPathComponent
            return name.isEmpty ? nil : name
        }
    }

    /// The entries that may be offered, the most recently used first.
    let entries: [Entry]

    /// The largest list read (GTK keeps a person's well under 1 MiB); a bigger one is not read.
    static let maximumListSize = 4 << 20
    /// The largest file offered: a bigger one is not worth carrying to another device.
    static let maximumDocumentSize: Int64 = 64 << 20
    /// How many of the most recent entries are looked at (each one's file is checked).
    static let maximumEntries = 64
    /// The longest app name and MIME type kept, in bytes: the offer's title holds the app's name.
    static let maximumNameLength = 255
    /// The longest command kept, in bytes.
    static let maximumCommandLength = 4096

    /// The list's file: `recently-used.xbel` in `$XDG_DATA_HOME`.
    static var standardFile: URL { XDGDirectories.dataHome.appendingPathComponent("recently-used.xbel") }
    /// GNOME Text Editor's own list, in the same format: `org.gnome.TextEditor/recently-used.xbel`
    /// in `$XDG_DATA_HOME` (version 43 never writes the shared one).
    static var textEditorFile: URL {
        XDGDirectories.dataHome.appendingPathComponent("org.gnome.TextEditor/recently-used.xbel")
    }
    /// The lists batond reads: the shared one and GNOME Text Editor's.
    static var standardFiles: [URL] { [standardFile, textEditorFile] }

    /// Reads the list at `url`, checking each file against the folder `home`.
    ///
    /// - Throws: ``RecentListError`` when the file cannot be read as a list; a missing file is
    ///   an empty list.
    static func read(_ url: URL = standardFile, home: URL = XDGDirectories.home) throws -> RecentList {
        guard let bytes = try readFile(url) else { return RecentList(entries: []) }
        return try parse(bytes, home: home)
    }

    /// The list held in `bytes`, its files checked against the folder `home`.
    static func parse(_ bytes: [UInt8], home: URL, fileCheck: (String) -> Bool = isOfferableFile) throws -> RecentList {
        guard bytes.count <= maximumListSize else { throw RecentListError.tooLarge(bytes.count) }
        // GTK never writes an empty file: one is a list cut to be written again in place.
        guard !bytes.isEmpty else { throw RecentListError.unreadable("the file is empty") }
        guard let bookmarks = g_bookmark_file_new() else { throw RecentListError.unreadable("no memory") }
        defer { g_bookmark_file_free(bookmarks) }
        var error: UnsafeMutablePointer<GError>?
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    g_bookmark_file_load_from_data(bookmarks, $0, gsize(buffer.count), &error)
                }
            } ?? 0
        }
        guard loaded != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "not a recent list"
            g_clear_error(&error)
            throw RecentListError.unreadable(message)
        }
        let homePath = home.standardizedFileURL.path
        // A home of "/" (or none) would make every file of the machine a document of home.
        guard homePath.hasPrefix("/"), homePath != "/" else { return RecentList(entries: []) }
        var candidates: [Entry] = []
        var count: gsize = 0
        guard let uris = g_bookmark_file_get_uris(bookmarks, &count) else { return RecentList(entries: []) }
        defer { g_strfreev(uris) }
        for index in 0..<Int(count) {
            guard let uri = uris[index] else { continue }
            if let entry = entry(uri, in: bookmarks, home: homePath) { candidates.append(entry) }
        }
        let newest = candidates.sorted { $0.usedAt > $1.usedAt }.prefix(maximumEntries)
        return RecentList(entries: newest.filter { fileCheck($0.path) })
    }

    /// The entry of `uri`, if it names a file in `home` that the list allows offering and an
    /// app with a name and command free of control characters.
    private static func entry(_ uri: UnsafeMutablePointer<CChar>, in bookmarks: OpaquePointer, home: String) -> Entry? {
        var error: UnsafeMutablePointer<GError>?
        defer { g_clear_error(&error) }
        if g_bookmark_file_get_is_private(bookmarks, uri, &error) != 0 { return nil }
        g_clear_error(&error)
        var hostname: UnsafeMutablePointer<CChar>?
        // GLib may hand the host back even when the path cannot be read ("file://host/%E"): it is freed either way.
        defer { g_free(hostname) }
        guard let filename = g_filename_from_uri(uri, &hostname, &error) else { return nil }
        defer { g_free(filename) }
        if let hostname, String(cString: hostname) != "localhost" { return nil }
        let path = String(cString: filename)
        guard isInsideVisibleFolder(path, of: home) else { return nil }
        var applicationCount: gsize = 0
        guard let applications = g_bookmark_file_get_applications(bookmarks, uri, &applicationCount, &error) else { return nil }
        defer { g_strfreev(applications) }
        var best: (name: String, exec: String, stamp: Double)?
        for index in 0..<Int(applicationCount) {
            guard let name = applications[index] else { continue }
            var exec: UnsafeMutablePointer<CChar>?
            var stamp: OpaquePointer?
            guard g_bookmark_file_get_application_info(bookmarks, uri, name, &exec, nil, &stamp, &error) != 0 else {
                g_clear_error(&error)
                continue
            }
            // The stamp is the bookmark file's own (transfer none): freeing it here freed it twice.
            defer { g_free(exec) }
            let app = String(cString: name)
            let command = exec.map { String(cString: $0) } ?? ""
            let usedAt = stamp.map { Double(g_date_time_to_unix($0)) } ?? 0
            guard isSafe(app, maximumLength: maximumNameLength), isSafe(command, maximumLength: maximumCommandLength),
                  !command.isEmpty else { continue }
            if usedAt >= (best?.stamp ?? -.infinity) { best = (app, command, usedAt) }
        }
        guard let best else { return nil }
        let mime = g_bookmark_file_get_mime_type(bookmarks, uri, &error).map { pointer -> String in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        return Entry(path: path, mimeType: mime.flatMap { isSafe($0, maximumLength: maximumNameLength) ? $0 : nil }, appName: best.name,
                     exec: best.exec, usedAt: best.stamp)
    }

    /// Whether `path` lies in `home`, with no folder or file of it hidden (a name starting
    /// with "."), and no `.` or `..` to climb out.
    static func isInsideVisibleFolder(_ path: String, of home: String) -> Bool {
        let prefix = home.hasSuffix("/") ? home : home + "/"
        guard path.hasPrefix(prefix), !UnsafeCharacters.occur(in: path) else { return false }
        let components = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        return !components.isEmpty && components.allSatisfy { !$0.isEmpty && !$0.hasPrefix(".") }
    }

    /// Whether `path` is a regular file (not a link, a FIFO or a device) of at most
    /// ``maximumDocumentSize``.
    static func isOfferableFile(_ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        return Int64(status.st_size) <= maximumDocumentSize
    }

    /// Whether `text` is at most `maximumLength` bytes and holds no unsafe character.
    private static func isSafe(_ text: String, maximumLength: Int) -> Bool {
        text.utf8.count <= maximumLength && !UnsafeCharacters.occur(in: text)
    }

    /// The list's bytes, read without following a link and only from a regular file of at
    /// most ``maximumListSize``; `nil` when there is no list.
    private static func readFile(_ url: URL) throws -> [UInt8]? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw RecentListError.unreadable(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw RecentListError.unreadable("not a regular file")
        }
        guard Int(status.st_size) <= maximumListSize else { throw RecentListError.tooLarge(Int(status.st_size)) }
        var bytes = [UInt8](repeating: 0, count: maximumListSize + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(descriptor, base + total, buffer.count - total)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw RecentListError.unreadable(String(cString: strerror(errno))) }
            if count == 0 { break }
            total += count
        }
        guard total <= maximumListSize else { throw RecentListError.tooLarge(total) }
        return Array(bytes.prefix(total))
    }
}

/// Why the recent list could not be read: it is then taken as empty, and the log says why.
enum RecentListError: Error, Equatable, CustomStringConvertible {
    case tooLarge(Int)
    case unreadable(String)

    var description: String {
        switch self {
        case .tooLarge(let size): "the recent list is \(size) bytes, over \(RecentList.maximumListSize); not read"
        case .unreadable(let reason): "the recent list cannot be read: \(reason)"
        }
    }
}
