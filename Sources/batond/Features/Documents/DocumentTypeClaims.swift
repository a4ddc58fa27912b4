import Baton
import BatonPeer

/// Which documents an app continues, as its desktop entry's `X-Baton-DocumentTypes` says:
/// `MIME-TYPE:ACTIVITY-TYPE` pairs, one per MIME type of each document type in its
/// Info.plist (`CFBundleDocumentTypes`) with the activity type its documents carry
/// (`NSUbiquitousDocumentUserActivityType`):
///
///     X-Baton-DocumentTypes=text/markdown:org.example.texteditor.editing;text/plain:org.example.texteditor.editing;
///
/// A pair counts only when its activity type is one the entry claims (`X-Baton-ActivityTypes`):
/// an entry cannot route documents to a type it does not continue.
struct DocumentTypeClaims: Equatable, Sendable {
    static let key = "X-Baton-DocumentTypes"

    /// The activity type of each MIME type (lowercased), as declared.
    private(set) var activityTypes: [String: String] = [:]
    /// The pairs that do not count, as written, each with why.
    private(set) var problems: [String] = []

    /// Reads the key's value `value` for an entry claiming `claimedActivityTypes`.
    init(_ value: String?, claimedActivityTypes: Set<String>) {
        guard let value else { return }
        for entry in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, PeerDocument.isMIMEType(parts[0]) else {
                problems.append("“\(entry)” is not MIME-TYPE:ACTIVITY-TYPE")
                continue
            }
            let mimeType = parts[0].lowercased()
            let activityType = parts[1]
            guard claimedActivityTypes.contains(activityType) else {
                problems.append("“\(entry)” names \(activityType), which X-Baton-ActivityTypes does not claim")
                continue
            }
            if let other = activityTypes[mimeType], other != activityType {
                problems.append("“\(entry)” gives \(mimeType) a second activity type (it has \(other))")
                continue
            }
            activityTypes[mimeType] = activityType
        }
    }

    /// The activity type the app's documents of `mimeType` carry, if it declares one.
    func activityType(forDocumentOf mimeType: String) -> String? {
        activityTypes[mimeType.lowercased()]
    }

    /// The MIME types declared, sorted.
    var mimeTypes: [String] { activityTypes.keys.sorted() }

    /// The pairs, sorted, as the entry writes them.
    var pairs: [String] {
        activityTypes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
    }
}
