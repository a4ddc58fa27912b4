import CGLib
import Foundation

/// Certificate authorities batond trusts beside the system's when it fetches web sites'
/// association files (`--trust-ca FILE`): a company's own CA, or a test CA. Peer links never
/// use them; devices are pinned.
final class TrustedAuthorities: @unchecked Sendable {
    /// The `GTlsDatabase` of the file's certificates; read-only once made.
    let database: UnsafeMutablePointer<GTlsDatabase>

    /// Reads the PEM certificates of `path`.
    ///
    /// - Throws: ``TrustedAuthoritiesError`` naming the file when it cannot be read or holds
    ///   no certificate.
    init(path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let certificates = g_tls_certificate_list_new_from_file(path, &error)
        if let error {
            defer { g_error_free(error) }
            throw TrustedAuthoritiesError("\(path): \(String(cString: error.pointee.message))")
        }
        guard g_list_length(certificates) > 0 else { throw TrustedAuthoritiesError("\(path) holds no PEM certificate") }
        g_list_free_full(certificates, { g_object_unref($0) })
        guard let database = g_tls_file_database_new(path, &error) else {
            defer { if let error { g_error_free(error) } }
            throw TrustedAuthoritiesError("\(path): \(error.map { String(cString: $0.pointee.message) } ?? "not a certificate file")")
        }
        self.database = UnsafeMutableRawPointer(database).assumingMemoryBound(to: GTlsDatabase.self)
    }

    deinit {
        g_object_unref(database)
    }
}

/// Why `--trust-ca` cannot be used.
struct TrustedAuthoritiesError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
