import Foundation

/// A kind of document an app opens, as its Info.plist declares it in `CFBundleDocumentTypes`:
/// a name, the file name extensions and MIME types it covers, and the activity type of its
/// documents (`NSUbiquitousDocumentUserActivityType`), if it has one.
public struct DocumentType: Hashable, Sendable {
    /// The type's name (`CFBundleTypeName`), as ``Document/read(from:ofType:)`` receives it.
    public var name: String
    /// File name extensions, without the dot (`CFBundleTypeExtensions`).
    public var fileExtensions: [String]
    /// MIME types (`CFBundleTypeMIMETypes`).
    public var mimeTypes: [String]
    /// The activity type every open document of this type carries
    /// (`NSUbiquitousDocumentUserActivityType`); `nil`: its documents get no activity of
    /// their own.
    public var activityType: String?

    public init(name: String, fileExtensions: [String] = [], mimeTypes: [String] = [], activityType: String? = nil) {
        self.name = name
        self.fileExtensions = fileExtensions
        self.mimeTypes = mimeTypes
        self.activityType = activityType
    }

    /// Whether a file named `url` is of this type by its extension (any case).
    public func matches(fileExtensionOf url: URL) -> Bool {
        let fileExtension = url.pathExtension.lowercased()
        return !fileExtension.isEmpty && fileExtensions.contains { $0.lowercased() == fileExtension }
    }
}
