import Baton
import BatonBus
import BatonGLib
import Foundation
import Glibc

/// "Continued from ‹device›" in the documents folder, where the copies of other devices'
/// documents are saved.
///
/// The folder is made and opened relative to the documents folder, and the files in it
/// relative to the folder, never through a link: a link planted in its place (pointing at
/// `~/.ssh`, say) makes the copy fail instead of writing where it points. Its name fits in one
/// file name (255 bytes) whatever the device is called, and no copy ever replaces a file.
final class CopiesFolder {
    /// The folder's path, for the person and the app.
    let url: URL
    private let descriptor: Int32

    /// The longest file name (`NAME_MAX`).
    static let maximumNameLength = 255

    /// Opens (making it if needed) the copies folder for documents from `device`.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` when it cannot be made or opened, or is not a
    ///   folder (a link, a file).
    init(from device: String, in documents: URL = XDGDirectories.documents) throws {
        let name = Self.folderName(from: device)
        url = documents.appendingPathComponent(name, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        } catch {
            throw Self.failure("cannot make \(documents.path) for a copy: \(error.localizedDescription)")
        }
        let parent = open(documents.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { throw Self.failure("cannot open \(documents.path): \(Self.lastError)") }
        defer { close(parent) }
        guard mkdirat(parent, name, 0o777) == 0 || errno == EEXIST else {
            throw Self.failure("cannot make \(url.path) for a copy: \(Self.lastError)")
        }
        descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR ? "it is a link or a file, not a folder" : Self.lastError
            throw Self.failure("no copy is saved in \(url.path): \(reason)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// "Continued from ‹device›", with the device's name made safe as a folder name (no `/`,
    /// no leading dot, no unsafe characters) and cut between characters to fit in 255 bytes.
    static func folderName(from device: String) -> String {
        var name = UnsafeCharacters.cleaned(device).replacingOccurrences(of: "/", with: "-")
        while name.hasPrefix(".") { name.removeFirst() }
        if name.trimmingCharacters(in: .whitespaces).isEmpty { name = "another device" }
        let prefix = "Continued from "
        return prefix + ActivityLimits.prefix(of: name, bytes: maximumNameLength - prefix.utf8.count)
    }

    /// A new, empty, private (0600) file in the folder, to receive a copy: its name and an
    /// open descriptor for writing.
    func createPartial() throws -> (name: String, descriptor: Int32) {
        let name = ".baton-\(UUID().uuidString).partial"
        let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Self.failure("cannot write a copy in \(url.path): \(Self.lastError)") }
        return (name, file)
    }

    /// Removes the file `name` from the folder (a partial copy).
    func remove(_ name: String) {
        unlinkat(descriptor, name, 0)
    }

    /// Gives the file `partial` its name `name` in the folder, or the first free "name (2).ext",
    /// "name (3).ext"…, each cut to fit in a file name: `linkat` never replaces a file, so
    /// nothing the person has is overwritten. Returns the copy's path.
    func link(_ partial: String, as name: String) throws -> URL {
        for number in 1...1000 {
            let candidate = Self.candidate(name, number: number)
            if linkat(descriptor, partial, descriptor, candidate, 0) == 0 { return url.appendingPathComponent(candidate) }
            guard errno == EEXIST else { throw Self.failure("cannot name the copy of \(name) in \(url.path): \(Self.lastError)") }
        }
        throw Self.failure("\(url.path) holds 1000 copies of \(name) already")
    }

    /// `name` for the first copy, "base (N).ext" after, the base cut between characters so
    /// that the whole fits in 255 bytes.
    static func candidate(_ name: String, number: Int) -> String {
        guard number > 1 else { return name }
        let base = (name as NSString).deletingPathExtension
        let pathExtension = (name as NSString).pathExtension
        let suffix = " (\(number))" + (pathExtension.isEmpty ? "" : ".\(pathExtension)")
        return ActivityLimits.prefix(of: base, bytes: max(maximumNameLength - suffix.utf8.count, 1)) + suffix
    }

    private static var lastError: String { String(cString: strerror(errno)) }

    private static func failure(_ message: String) -> ServiceError {
        .activity(.handoffFailed(message))
    }
}
