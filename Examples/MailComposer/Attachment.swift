import Baton
import Foundation

/// A file attached to a draft, as the draft's `userInfo` carries it: its name, size and
/// SHA-256, never its bytes. The bytes live in the ``AttachmentStore``; a device continuing
/// the draft fetches those it lacks through a continuation stream, and checks each digest.
struct Attachment: Encodable, Equatable, Hashable {
    var name: String
    var size: Int
    /// The SHA-256 of the bytes, as 64 lowercase hex digits.
    var sha256: String

    /// The most attachments a draft holds, and the largest one.
    static let maximumCount = 20
    static let maximumSize = 200 << 20

    /// Whether `text` is a SHA-256 as attachments name them.
    static func isDigest(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Reads an attachment from a draft's `userInfo`; `nil` for anything else.
    init?(_ value: UserInfoValue) {
        guard case .dictionary(let fields) = value, let name = fields["name"]?.stringValue,
              let size = fields["size"]?.intValue, let sha256 = fields["sha256"]?.stringValue,
              !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), name != ".", name != "..",
              !ActivityLimits.containsUnsafe(name),
              (0...Self.maximumSize).contains(size), Self.isDigest(sha256)
        else { return nil }
        self.init(name: name, size: size, sha256: sha256)
    }

    init(name: String, size: Int, sha256: String) {
        (self.name, self.size, self.sha256) = (name, size, sha256)
    }

    /// `name` as an attachment may be named: no control characters, line separators or
    /// bidirectional controls (which could make "invoice‮fdp.exe" read as a PDF), no
    /// slashes, at most 255 bytes.
    static func cleanName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(ActivityLimits.isUnsafe(scalar) || scalar == "/" ? "_" : scalar)
        }
        var clean = String(scalars)
        while clean.utf8.count > 255 { clean.removeFirst() }
        return clean.isEmpty || clean == "." || clean == ".." ? "attachment" : clean
    }

    /// The size as a person reads it: "12 KB", "3.4 MB".
    var sizeDescription: String {
        ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file)
    }
}
