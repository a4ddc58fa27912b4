import Foundation

/// The app's open documents and the types it opens, like AppKit's `NSDocumentController`.
///
/// A document of a type that names an activity type (``DocumentType/activityType``) gets
/// that activity automatically while it has a file URL: the controller makes it, titles it
/// with the file's name, and the document's ``Document/updateUserActivityState(_:)`` puts
/// the file URL under ``UserActivity/documentURLKey``. A change of the document's
/// ``Document/fileURL`` marks the activity for an update pass, and closing the document
/// invalidates it. When a continued activity's delegate declines it (or has no `continue…`),
/// the controller reopens the document it names (see ``Application``).
///
/// The controller does no I/O: the document reads its file (``Document/read(from:ofType:)``).
@MainActor
open class DocumentController {
    /// The app's document controller: the first one made, or a plain one, made on first use.
    public static var shared: DocumentController {
        made ?? DocumentController()
    }

    private static var made: DocumentController?

    /// The center the documents' activities report to.
    public let center: ActivityCenter
    /// The types of documents the app opens, in the order it prefers them.
    public var documentTypes: [DocumentType]
    /// The open documents, in the order they were added.
    public private(set) var documents: [Document] = []
    private let makeDocumentObject: @MainActor (URL?, DocumentType) -> Document

    /// Creates a controller of the app's `documentTypes`, whose documents `makeDocument`
    /// makes for a file (not yet read) or, given no URL, untitled. The first one created
    /// becomes ``shared``, and the first of a center reopens the documents its application's
    /// continuations name.
    public init(documentTypes: [DocumentType] = [], center: ActivityCenter = .shared,
                makeDocument: @escaping @MainActor (URL?, DocumentType) -> Document = { url, _ in Document(fileURL: url) }) {
        self.documentTypes = documentTypes
        self.center = center
        makeDocumentObject = makeDocument
        if DocumentController.made == nil { DocumentController.made = self }
        if center.documentController == nil { center.documentController = self }
    }

    /// The declared type of the file at `url`, by its extension. The toolkit layer also reads
    /// the file's contents (``DocumentType/mimeTypes``): BatonGtk's `DesktopDocumentController`.
    open func documentType(for url: URL) -> DocumentType? {
        documentTypes.first { $0.matches(fileExtensionOf: url) }
    }

    /// The open document stored at `url`, if any.
    public func document(for url: URL) -> Document? {
        let path = url.standardizedFileURL.path
        return documents.first { $0.fileURL?.standardizedFileURL.path == path }
    }

    /// Makes the document for the file at `url` and has it read the file.
    ///
    /// - Throws: what the document's ``Document/read(from:ofType:)`` throws.
    open func makeDocument(withContentsOf url: URL, ofType type: DocumentType) throws -> Document {
        let document = makeDocumentObject(url, type)
        try document.read(from: url, ofType: type.name)
        return document
    }

    /// Opens the document stored at `url`, or returns it when it is open already; with
    /// `display`, the new document makes its windows (``Document/makeWindowControllers()``).
    ///
    /// - Throws: ``DocumentError`` for a URL that is not a file's or a file of no declared
    ///   type, and what reading the file throws.
    @discardableResult
    open func openDocument(withContentsOf url: URL, display: Bool = true) throws -> Document {
        guard url.isFileURL else { throw DocumentError.notAFile(url) }
        if let open = document(for: url) { return open }
        guard let type = documentType(for: url) else { throw DocumentError.undeclaredType(url) }
        let document = try makeDocument(withContentsOf: url, ofType: type)
        addDocument(document)
        if display { document.makeWindowControllers() }
        return document
    }

    /// Makes a new, untitled document of `type` (the first declared type unless given) and
    /// adds it; with `display`, it makes its windows. It gets its activity once it is saved
    /// to a file (``Document/fileURL``).
    ///
    /// - Throws: ``DocumentError/noDocumentTypes`` when the app declares none.
    @discardableResult
    open func openUntitledDocument(ofType type: DocumentType? = nil, display: Bool = true) throws -> Document {
        guard let type = type ?? documentTypes.first else { throw DocumentError.noDocumentTypes }
        let document = makeDocumentObject(nil, type)
        addDocument(document)
        if display { document.makeWindowControllers() }
        return document
    }

    /// Adds a document the app made itself to the open documents.
    open func addDocument(_ document: Document) {
        guard !documents.contains(where: { $0 === document }) else { return }
        documents.append(document)
        document.documentController = self
        documentDidChangeFileURL(document)
    }

    /// Removes a document from the open documents; closing a document does this.
    open func removeDocument(_ document: Document) {
        documents.removeAll { $0 === document }
        if document.documentController === self { document.documentController = nil }
    }

    /// Gives the document the activity its file's type names, or marks the one it has for an
    /// update pass; a document whose file has no such type loses the activity the controller
    /// gave it.
    func documentDidChangeFileURL(_ document: Document) {
        guard let url = document.fileURL, let activityType = documentType(for: url)?.activityType else {
            if document.hasAutomaticActivity {
                document.dropAutomaticActivity()
            } else {
                document.userActivity?.needsSave = true
            }
            return
        }
        if let activity = document.userActivity,
           !document.hasAutomaticActivity || activity.activityType == activityType {
            if document.hasAutomaticActivity { activity.title = url.lastPathComponent }
            activity.needsSave = true
            return
        }
        if document.hasAutomaticActivity { document.dropAutomaticActivity() }
        let activity = UserActivity(activityType: activityType, center: center)
        activity.title = url.lastPathComponent
        document.userActivity = activity
        document.hasAutomaticActivity = true
        activity.needsSave = true
    }
}

/// Why a document could not be opened.
public enum DocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL is not a file's.
    case notAFile(URL)
    /// The file is of no type the app declares (`CFBundleDocumentTypes`), or, for a continued
    /// activity, of no type declared for the activity's type.
    case undeclaredType(URL)
    /// A continued activity carries no document URL.
    case noDocumentURL
    /// The app declares no document types (`CFBundleDocumentTypes`).
    case noDocumentTypes

    public var description: String {
        switch self {
        case .notAFile(let url): "\(url.absoluteString) is not a file"
        case .undeclaredType(let url): "\(url.lastPathComponent) is of no document type this app declares"
        case .noDocumentURL: "the activity names no document (\(UserActivity.documentURLKey))"
        case .noDocumentTypes: "the app declares no document types (CFBundleDocumentTypes)"
        }
    }
}
