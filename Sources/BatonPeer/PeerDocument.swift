import Baton
import BatonBus
import BatonGLib

/// The file a continued activity names (its ``UserActivity/documentURLKey``), as the origin
/// describes it beside the payload: enough for the continuing device to tell whether it has
/// the same file, and to fetch a copy when it has not (``PeerDocument/streamActivityID(for:)``).
///
/// The origin describes only a regular file of a type its app declares for the activity's
/// type, no larger than ``maximumSize``.
public struct PeerDocument: Hashable, Sendable {
    /// The file's name, without any folder: at most 255 bytes, no `/`, not `.` or `..`.
    public var name: String
    public var size: UInt64
    /// The SHA-256 digest of the file's bytes.
    public var sha256: [UInt8]
    /// Its MIME type, as the origin's desktop types it.
    public var mimeType: String
    /// Where the file lies in a folder Syncthing shares, when it does: the continuing device
    /// finds its own copy of that folder there.
    public var syncthing: SyncthingLocation?

    /// A file in a Syncthing folder: the folder's id (the same on every device that shares
    /// it), the file's path inside it, and the version Syncthing gives the origin's copy.
    public struct SyncthingLocation: Hashable, Sendable {
        public var folderID: String
        /// Relative, with `/` between names; never `..` or an absolute path.
        public var path: String
        /// Syncthing's version vector of the origin's copy (`DEVICE:COUNTER` entries).
        public var version: [String]

        public init(folderID: String, path: String, version: [String]) {
            self.folderID = folderID
            self.path = path
            self.version = version
        }
    }

    /// The largest document the origin describes, and so sends.
    public static let maximumSize: UInt64 = 64 << 20

    public init(name: String, size: UInt64, sha256: [UInt8], mimeType: String, syncthing: SyncthingLocation? = nil) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.mimeType = mimeType
        self.syncthing = syncthing
    }

    /// The activity id a stream opens to fetch the document of the activity `activityID`
    /// (``PeerMessage/streamOpen(stream:activityID:)``): the origin's batond, not its app,
    /// answers it, with the file's bytes.
    public static func streamActivityID(for activityID: String) -> String {
        documentStreamPrefix + activityID
    }

    /// The activity whose document a stream's activity id asks for, if it asks for one.
    public static func activityID(fromStreamActivityID streamID: String) -> String? {
        streamID.hasPrefix(documentStreamPrefix) ? String(streamID.dropFirst(documentStreamPrefix.count)) : nil
    }

    private static let documentStreamPrefix = "document-"

    var record: [String: BusValue] {
        var record: [String: BusValue] = ["name": .string(name), "size": .uint64(size), "sha256": .bytes(sha256),
                                          "mime-type": .string(mimeType)]
        if let syncthing {
            record["syncthing-folder"] = .string(syncthing.folderID)
            record["syncthing-path"] = .string(syncthing.path)
            record["syncthing-version"] = .strings(syncthing.version)
        }
        return record
    }

    init(record: [String: BusValue]) throws {
        guard let name = record["name"]?.string, Self.isFileName(name) else {
            throw PeerProtocolError("payload message: the document's \"name\" must be a file name of at most 255 bytes")
        }
        guard case .uint64(let size)? = record["size"], size <= Self.maximumSize else {
            throw PeerProtocolError("payload message: the document's \"size\" must be a uint64 of at most \(Self.maximumSize)")
        }
        guard let digest = record["sha256"]?.bytes, digest.count == 32 else {
            throw PeerProtocolError("payload message: the document's \"sha256\" must be 32 bytes")
        }
        guard let mimeType = record["mime-type"]?.string, Self.isMIMEType(mimeType) else {
            throw PeerProtocolError("payload message: the document's \"mime-type\" must be TYPE/SUBTYPE")
        }
        self.init(name: name, size: size, sha256: digest, mimeType: mimeType, syncthing: try Self.syncthingLocation(record))
    }

    /// The Syncthing fields of a description: none, or all three, well formed.
    private static func syncthingLocation(_ record: [String: BusValue]) throws -> SyncthingLocation? {
        guard record["syncthing-folder"] != nil || record["syncthing-path"] != nil else { return nil }
        guard let folder = record["syncthing-folder"]?.string, !folder.isEmpty, folder.utf8.count <= 64,
              folder.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw PeerProtocolError("payload message: the document's \"syncthing-folder\" must be a folder id")
        }
        guard let path = record["syncthing-path"]?.string, isRelativePath(path) else {
            throw PeerProtocolError("payload message: the document's \"syncthing-path\" must be a relative path inside the folder")
        }
        guard let version = record["syncthing-version"]?.strings, version.count <= 64,
              version.allSatisfy({ $0.utf8.count <= 64 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ":") } }) else {
            throw PeerProtocolError("payload message: the document's \"syncthing-version\" must be Syncthing's version entries")
        }
        return SyncthingLocation(folderID: folder, path: path, version: version)
    }

    /// A path inside a folder: file names (``isFileName(_:)``) joined by `/`, at most 4 096
    /// bytes; so never absolute, never `..`.
    public static func isRelativePath(_ path: String) -> Bool {
        path.utf8.count <= 4096 && path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { isFileName(String($0)) }
    }

    /// `type/subtype`, each part 1 to 127 of the characters MIME allows in a token, without
    /// parameters.
    public static func isMIMEType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.count <= 127 && $0.allSatisfy(mimeTokenCharacters.contains) }
    }

    private static let mimeTokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&^_.+-")

    /// A name a file can have in a folder: no `/` or NUL, not `.` or `..`, at most 255 bytes,
    /// and nothing ``UnsafeCharacters`` would hide from the person.
    public static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name != "." && name != ".." && !name.contains("/")
            && !name.contains("\0") && !UnsafeCharacters.occur(in: name)
    }
}
