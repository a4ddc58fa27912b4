import Baton
import BatonBus
import BatonGLib
import BatonGtk
import CBatonGObject
import CGLib
import CGtk
import Foundation

// The functions of `BatonDocument` and of the application's documents that the C half
// forwards here (see `src/baton-swift.h`). GTK calls them on the main thread.

@MainActor @_cdecl("baton_swift_application_add_document_type")
func batonSwiftApplicationAddDocumentType(_ handle: UnsafeMutableRawPointer, _ name: UnsafePointer<CChar>,
                                          _ extensions: UnsafePointer<UnsafePointer<CChar>?>,
                                          _ mimeTypes: UnsafePointer<UnsafePointer<CChar>?>,
                                          _ activityType: UnsafePointer<CChar>?) {
    ApplicationBridge.from(handle).documentController.documentTypes.append(
        DocumentType(name: String(cString: name), fileExtensions: strings(extensions), mimeTypes: strings(mimeTypes),
                     activityType: activityType.map { String(cString: $0) }))
}

/// Opens the document at `uri`; its GObject (transfer none), or `NULL` with `error` set.
@MainActor @_cdecl("baton_swift_application_open_document")
func batonSwiftApplicationOpenDocument(_ handle: UnsafeMutableRawPointer, _ uri: UnsafePointer<CChar>,
                                       _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer? {
    let text = String(cString: uri)
    do {
        guard let url = URL(string: text) else { throw DocumentError.notAFile(URL(fileURLWithPath: text)) }
        let document = try ApplicationBridge.from(handle).documentController.openDocument(withContentsOf: url)
        guard let document = document as? GObjectDocument else { return nil }
        return document.object
    } catch {
        let code = (error as? UserActivityError)?.code ?? UserActivityError.handoffFailed("").code
        g_set_error_literal(errorOut, BatonErrorTable.domain, gint(code), "\(error)")
        return nil
    }
}

private func document(_ handle: UnsafeMutableRawPointer) -> GObjectDocument {
    Unmanaged<GObjectDocument>.fromOpaque(handle).takeUnretainedValue()
}

@MainActor @_cdecl("baton_swift_document_dup_uri")
func batonSwiftDocumentDupURI(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
    document(handle).fileURL.flatMap { g_strdup($0.absoluteString) }
}

@MainActor @_cdecl("baton_swift_document_dup_type_name")
func batonSwiftDocumentDupTypeName(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
    g_strdup(document(handle).typeName)
}

@MainActor @_cdecl("baton_swift_document_get_activity")
func batonSwiftDocumentGetActivity(_ handle: UnsafeMutableRawPointer) -> OpaquePointer? {
    document(handle).activityGObject
}

@MainActor @_cdecl("baton_swift_document_add_window")
func batonSwiftDocumentAddWindow(_ handle: UnsafeMutableRawPointer, _ window: UnsafeMutablePointer<GtkWindow>) {
    guard let bridge = ApplicationBridge.current else { return }
    document(handle).add(bridge.adopt(window))
}

@MainActor @_cdecl("baton_swift_document_close")
func batonSwiftDocumentClose(_ handle: UnsafeMutableRawPointer) {
    document(handle).close()
}
