import Foundation

/// What a web site says about the apps that may continue its pages, as the file it serves
/// says it: Apple's `apple-app-site-association` shape, which Baton reads for its own file
/// too:
///
///     {"activitycontinuation": {"apps": ["org.example.org.example.MailComposer"]}}
///
/// Each entry is an app's team id and app id joined by a dot (`TEAM.APPID`), as Apple's are.
/// Other keys (`applinks`, `webcredentials`) are allowed and ignored.
struct AssociationFile: Equatable, Sendable {
    /// The entries of `activitycontinuation.apps`, as written.
    let apps: Set<String>

    /// The largest file read: Apple's limit for the file.
    static let maximumSize = 128 << 10
    /// The most entries read.
    static let maximumApps = 1000

    /// Reads a file's bytes.
    ///
    /// - Throws: ``AssociationFileError`` saying what is wrong: too large, not JSON, no
    ///   `activitycontinuation.apps` list of strings, an entry that is not `TEAM.APPID`.
    init(bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumSize else {
            throw AssociationFileError("the file is \(bytes.count) bytes, over the limit of \(Self.maximumSize)")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw AssociationFileError("the file is not JSON")
        }
        guard let top = object as? [String: Any] else { throw AssociationFileError("the file is not a JSON object") }
        guard let continuation = top["activitycontinuation"] as? [String: Any] else {
            throw AssociationFileError("the file has no \"activitycontinuation\" object")
        }
        guard let entries = continuation["apps"] as? [Any] else {
            throw AssociationFileError("\"activitycontinuation\" has no \"apps\" list")
        }
        guard entries.count <= Self.maximumApps else {
            throw AssociationFileError("\"activitycontinuation.apps\" lists \(entries.count) apps, over the limit of \(Self.maximumApps)")
        }
        var apps: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard let text = entry as? String, Self.isAppEntry(text) else {
                throw AssociationFileError("\"activitycontinuation.apps\"[\(index)] is not TEAM.APPID")
            }
            apps.insert(text)
        }
        self.apps = apps
    }

    /// Whether the file lets the app `appID` of team `teamID` continue the site's pages.
    func allows(appID: String, teamID: String) -> Bool {
        apps.contains("\(teamID).\(appID)")
    }

    /// `TEAM.APPID`: at least two dot-separated names of letters, digits, `-` and `_`, at most
    /// 255 bytes.
    private static func isAppEntry(_ text: String) -> Bool {
        let names = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 255 && names.count >= 2
            && names.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") } }
    }
}

/// Why an association file cannot be used.
struct AssociationFileError: Error, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
