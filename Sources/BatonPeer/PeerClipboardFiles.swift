import BatonGLib

/// Copied files as the clipboard moves them: a device whose person copied files announces
/// ``announcedType`` instead of its local file list; a paste of them fetches this list (the
/// files' names and sizes) as that type, then each file's bytes as ``fileType(_:)``, window by
/// window, into the pasting device's "Continued from ‹device›" folder.
public struct PeerClipboardFiles: Hashable, Sendable {
    /// One copied file: its name (no folder) and its size in bytes.
    public struct File: Hashable, Sendable {
        public var name: String
        public var size: UInt64

        public init(name: String, size: UInt64) {
            self.name = name
            self.size = size
        }
    }

    public var files: [File]

    /// The type copied files are announced and their list fetched as.
    public static let announcedType = "application/x-baton-files"
    /// The most files one copy moves.
    public static let maximumFiles = 64
    /// The largest file one copy moves (as a document, 64 MiB).
    public static let maximumFileSize = PeerDocument.maximumSize
    /// The most bytes one copy's files hold in all.
    public static let maximumTotalSize: UInt64 = 256 << 20

    public init(files: [File]) {
        self.files = files
    }

    /// The type the file at `index` of the list is fetched as.
    public static func fileType(_ index: Int) -> String {
        "application/x-baton-file;index=\(index)"
    }

    /// The index a type made by ``fileType(_:)`` names, or `nil` for any other type.
    public static func fileIndex(of type: String) -> Int? {
        let prefix = "application/x-baton-file;index="
        guard type.hasPrefix(prefix), let index = Int(type.dropFirst(prefix.count)), index >= 0,
              index < maximumFiles, fileType(index) == type else { return nil }
        return index
    }

    /// Whether the list keeps the caps: 1 to ``maximumFiles`` files, each a file name
    /// (``PeerDocument/isFileName(_:)``, not hidden) of at most ``maximumFileSize`` bytes, no
    /// name twice, at most ``maximumTotalSize`` in all.
    public var isWithinCaps: Bool {
        guard (1...Self.maximumFiles).contains(files.count), Set(files.map(\.name)).count == files.count else { return false }
        var total: UInt64 = 0
        for file in files {
            guard PeerDocument.isFileName(file.name), !file.name.hasPrefix("."), file.size <= Self.maximumFileSize else { return false }
            total += file.size
        }
        return total <= Self.maximumTotalSize
    }

    /// The list as the bytes a fetch of ``announcedType`` is answered with.
    public var bytes: [UInt8] {
        BusValue.serialize(record: ["files": .dictionaries(files.map { ["name": .string($0.name), "size": .uint64($0.size)] })])
    }

    /// Reads a list fetched from another device, every field checked.
    ///
    /// - Throws: ``PeerProtocolError`` naming what is wrong.
    public init(bytes: [UInt8]) throws {
        let record: [String: BusValue]
        do {
            record = try BusValue.deserialize(record: bytes)
        } catch {
            throw PeerProtocolError("copied files: \(error)")
        }
        guard let records = record["files"]?.dictionaries else {
            throw PeerProtocolError("copied files: \"files\" must be a list of records")
        }
        var files: [File] = []
        for item in records.prefix(Self.maximumFiles + 1) {
            guard let name = item["name"]?.string, case .uint64(let size)? = item["size"] else {
                throw PeerProtocolError("copied files: each file must have a \"name\" (s) and a \"size\" (t)")
            }
            files.append(File(name: name, size: size))
        }
        self.init(files: files)
        guard isWithinCaps else {
            throw PeerProtocolError("copied files: 1 to \(Self.maximumFiles) files, each a visible file name of at most \(Self.maximumFileSize) bytes, no name twice, at most \(Self.maximumTotalSize) bytes in all")
        }
    }
}
