import Baton
import BatonGLib
import CGLib
import CGtk
import Foundation
import Glibc

/// The document controller of a GTK app: its document types come from its Info.plist
/// (``BundleInfo``), a file whose name has no declared extension is typed by its contents
/// (GIO's content type, MIME subtypes included), and each document opened is added to the desktop's recent files
/// (`GtkRecentManager`), where ``recentDocumentURLs`` reads them back.
@MainActor
open class DesktopDocumentController: DocumentController {
    private let recentManager: UnsafeMutablePointer<GtkRecentManager>
    /// The app as the recent files name it: its id, and the command that opens a file with it.
    private let applicationID: String

    /// Creates the controller of the document types `bundleInfo` declares, for `application`;
    /// `recentManager` is the desktop's unless given (tests give their own).
    public init(bundleInfo: BundleInfo, application: BatonApplication,
                recentManager: UnsafeMutablePointer<GtkRecentManager>? = nil,
                makeDocument: @escaping @MainActor (URL?, DocumentType) -> Document) {
        self.recentManager = recentManager ?? gtk_recent_manager_get_default()
        g_object_ref(UnsafeMutableRawPointer(self.recentManager))
        applicationID = application.applicationID
        super.init(documentTypes: bundleInfo.documentTypes, center: application.center, makeDocument: makeDocument)
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(recentManager))
    }

    /// The declared type of the file at `url`: by its extension, else the first type whose
    /// MIME types include the file's content type or one it is a kind of (a README is
    /// `text/x-readme`, a kind of `text/plain`).
    open override func documentType(for url: URL) -> DocumentType? {
        if let type = super.documentType(for: url) { return type }
        guard Self.isRegularFile(url), let contentType = Self.mimeType(of: url) else { return nil }
        return documentTypes.first { type in
            type.mimeTypes.contains { g_content_type_is_mime_type(contentType, $0) != 0 }
        }
    }

    /// Opens the document as `DocumentController` does, and adds its file to the recent
    /// files. Only a regular file opens: a continued activity names a path another device
    /// chose, and reading a FIFO or a device there would block the app.
    @discardableResult
    open override func openDocument(withContentsOf url: URL, display: Bool = true) throws -> Document {
        guard document(for: url) != nil || Self.isRegularFile(url) else { throw DocumentError.notAFile(url) }
        let document = try super.openDocument(withContentsOf: url, display: display)
        noteRecent(url)
        return document
    }

    /// Adds the file to the recent files, as opened by this app (`gtk_recent_manager_add_item`
    /// needs a program name, which a process gets only once its GApplication runs).
    private func noteRecent(_ url: URL) {
        let executable = ProcessExecutable.path(of: getpid()) ?? CommandLine.arguments.first ?? applicationID
        guard let quoted = g_shell_quote(executable) else { return }
        defer { g_free(quoted) }
        Self.addRecent(url, mimeType: Self.mimeType(of: url) ?? "application/octet-stream", appName: applicationID,
                       command: "\(String(cString: quoted)) %u", to: recentManager)
    }

    /// Adds `url` to `manager`'s recent files as opened by the app `appName`, whose `command`
    /// (with `%u` for the file) opens it again.
    package static func addRecent(_ url: URL, mimeType: String, appName: String, command: String,
                                  to manager: UnsafeMutablePointer<GtkRecentManager>) {
        appName.withCString { name in
            mimeType.withCString { mime in
                command.withCString { exec in
                    var data = GtkRecentData()
                    data.mime_type = UnsafeMutablePointer(mutating: mime)
                    data.app_name = UnsafeMutablePointer(mutating: name)
                    data.app_exec = UnsafeMutablePointer(mutating: exec)
                    _ = gtk_recent_manager_add_full(manager, url.absoluteString, &data)
                }
            }
        }
    }

    /// The recent files this app opened, of its declared types, that still exist, the most
    /// recent first.
    public var recentDocumentURLs: [URL] {
        let declared = Set(documentTypes.flatMap(\.mimeTypes))
        var found: [(URL, Int)] = []
        var item = gtk_recent_manager_get_items(recentManager)
        let items = item
        defer { g_list_free_full(items) { gtk_recent_info_unref(OpaquePointer($0)) } }
        while let node = item {
            defer { item = node.pointee.next }
            let info = OpaquePointer(node.pointee.data)
            guard gtk_recent_info_has_application(info, applicationID) != 0, let uri = gtk_recent_info_get_uri(info),
                  let url = URL(string: String(cString: uri)), Self.isRegularFile(url) else { continue }
            let mimeType = gtk_recent_info_get_mime_type(info).map { String(cString: $0) } ?? ""
            guard declared.contains(mimeType) || documentType(for: url) != nil else { continue }
            let modified = gtk_recent_info_get_modified(info).map { Int(g_date_time_to_unix($0)) } ?? 0
            found.append((url, modified))
        }
        return found.sorted { $0.1 > $1.1 }.map(\.0)
    }

    /// Whether `url` is a regular file (symbolic links followed), such as a document is.
    static func isRegularFile(_ url: URL) -> Bool {
        guard url.isFileURL else { return false }
        var status = stat()
        return stat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// The content type (on Linux, a MIME type) GIO gives the file at `url` from its name and
    /// contents; `nil` when it cannot be read.
    static func mimeType(of url: URL) -> String? {
        guard url.isFileURL else { return nil }
        let file = g_file_new_for_path(url.path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let info = g_file_query_info(file, "standard::content-type", G_FILE_QUERY_INFO_NONE, nil, nil) else {
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        return g_file_info_get_content_type(info).map { String(cString: $0) }
    }
}
