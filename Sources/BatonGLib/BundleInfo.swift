import Baton
import Foundation

/// What an app's Info.plist declares to Baton: its identity, the activity types it continues
/// (`NSUserActivityTypes`) and its document types (`CFBundleDocumentTypes`), as on macOS.
public struct BundleInfo: Sendable {
    /// `CFBundleIdentifier`: the app id.
    public var identifier: String?
    /// `CFBundleName`.
    public var name: String?
    /// `BatonTeamIdentifier`: the team whose activities the app may continue.
    public var teamIdentifier: String?
    /// `NSUserActivityTypes`: the activity types the app continues.
    public var activityTypes: [String]
    /// `CFBundleDocumentTypes`: the documents the app opens, each with the activity type of
    /// its documents, if any.
    public var documentTypes: [DocumentType]

    /// Every activity type the app continues: its `NSUserActivityTypes`, then its document
    /// types' activity types, each once.
    public var allActivityTypes: [String] {
        var seen = Set<String>()
        return (activityTypes + documentTypes.compactMap(\.activityType)).filter { seen.insert($0).inserted }
    }

    public init(identifier: String? = nil, name: String? = nil, teamIdentifier: String? = nil,
                activityTypes: [String] = [], documentTypes: [DocumentType] = []) {
        self.identifier = identifier
        self.name = name
        self.teamIdentifier = teamIdentifier
        self.activityTypes = activityTypes
        self.documentTypes = documentTypes
    }

    /// Reads the Info.plist at `url` (XML or binary).
    ///
    /// - Throws: ``BundleInfoError`` naming the file and, for a bad key, where it is.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw BundleInfoError(file: url.path, place: "", reason: "cannot be read: \(error.localizedDescription)")
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw BundleInfoError(file: url.path, place: "", reason: "is not a property list")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw BundleInfoError(file: url.path, place: "", reason: "is not a dictionary at its top")
        }
        do {
            try self.init(propertyList: dictionary)
        } catch let error as BundleInfoError {
            throw BundleInfoError(file: url.path, place: error.place, reason: error.reason)
        }
    }

    /// Reads an Info.plist's top dictionary.
    ///
    /// - Throws: ``BundleInfoError`` for a key of the wrong kind or a document type
    ///   without a name.
    public init(propertyList plist: [String: Any]) throws {
        identifier = try Self.value(plist, "CFBundleIdentifier", at: "")
        name = try Self.value(plist, "CFBundleName", at: "")
        teamIdentifier = try Self.value(plist, "BatonTeamIdentifier", at: "")
        activityTypes = try Self.value(plist, "NSUserActivityTypes", at: "") ?? []
        let entries: [Any] = try Self.value(plist, "CFBundleDocumentTypes", at: "") ?? []
        documentTypes = try entries.enumerated().map { index, entry in
            let place = "CFBundleDocumentTypes[\(index)]"
            guard let entry = entry as? [String: Any] else {
                throw BundleInfoError(file: "", place: place, reason: "is not a dictionary")
            }
            guard let name: String = try Self.value(entry, "CFBundleTypeName", at: place), !name.isEmpty else {
                throw BundleInfoError(file: "", place: place, reason: "has no CFBundleTypeName")
            }
            return DocumentType(name: name,
                                fileExtensions: try Self.value(entry, "CFBundleTypeExtensions", at: place) ?? [],
                                mimeTypes: try Self.value(entry, "CFBundleTypeMIMETypes", at: place) ?? [],
                                activityType: try Self.value(entry, "NSUbiquitousDocumentUserActivityType", at: place))
        }
    }

    /// The value of `key` in `dictionary`, `nil` when absent.
    private static func value<Value>(_ dictionary: [String: Any], _ key: String, at place: String) throws -> Value? {
        guard let value = dictionary[key] else { return nil }
        guard let typed = value as? Value else {
            throw BundleInfoError(file: "", place: place.isEmpty ? key : "\(place).\(key)",
                                  reason: "is not \(Value.self == String.self ? "a string" : Value.self == [String].self ? "a list of strings" : "a list")")
        }
        return typed
    }
}

/// An Info.plist that cannot be read, and where.
public struct BundleInfoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, when it was read from one.
    public let file: String
    /// The key path of the bad value (`CFBundleDocumentTypes[1].CFBundleTypeName`), or empty.
    public let place: String
    public let reason: String

    public init(file: String, place: String = "", reason: String) {
        self.file = file
        self.place = place
        self.reason = reason
    }

    public var description: String {
        [file.isEmpty ? "Info.plist" : file, place].filter { !$0.isEmpty }.joined(separator: ": ") + " \(reason)"
    }
}
