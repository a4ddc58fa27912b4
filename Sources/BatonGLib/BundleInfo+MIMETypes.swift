import Baton
import CGLib

extension BundleInfo {
    /// The declared file name extensions that this desktop's MIME database types otherwise
    /// than the Info.plist declares, each as a sentence saying so and what to do: a made-up
    /// extension (`.todo`) has no type until the app installs a shared-mime-info definition,
    /// and a document of it is then opened as no declared type and not sent with its activity.
    /// Document types that declare no MIME types are not checked.
    public var mimeTypeMismatches: [String] {
        documentTypes.flatMap { type in
            type.fileExtensions.compactMap { fileExtension -> String? in
                guard !type.mimeTypes.isEmpty else { return nil }
                let guessed = Self.desktopMIMEType(ofExtension: fileExtension)
                if let guessed, type.mimeTypes.contains(where: { Self.mimeType(guessed, isA: $0) }) { return nil }
                return "*.\(fileExtension) files are \(guessed ?? "of no known type") to this desktop, not "
                    + type.mimeTypes.joined(separator: " or ") + " as \(type.name) declares: install a shared-mime-info "
                    + "definition in mime/packages and run update-mime-database"
            }
        }
    }

    /// The MIME type the desktop gives a file named `*.fileExtension`, by its name alone;
    /// `nil` when it cannot tell.
    static func desktopMIMEType(ofExtension fileExtension: String) -> String? {
        var uncertain: gboolean = 0
        guard let contentType = g_content_type_guess("file.\(fileExtension)", nil, 0, &uncertain) else { return nil }
        defer { g_free(contentType) }
        guard g_content_type_is_unknown(contentType) == 0, let mime = g_content_type_get_mime_type(contentType) else {
            return nil
        }
        defer { g_free(mime) }
        return String(cString: mime)
    }

    /// Whether MIME type `type` is `declared` or a kind of it (`text/x-csrc` is `text/plain`).
    static func mimeType(_ type: String, isA declared: String) -> Bool {
        guard let wanted = g_content_type_from_mime_type(declared) else { return type == declared }
        defer { g_free(wanted) }
        guard let actual = g_content_type_from_mime_type(type) else { return false }
        defer { g_free(actual) }
        return g_content_type_is_a(actual, wanted) != 0
    }
}
