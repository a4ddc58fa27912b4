import Baton
import CGLib

/// Every error Baton's D-Bus contract names, one row each: its number and its D-Bus error
/// name. `UserActivityError`s keep their `UserActivityError/code`; the service's own
/// errors are numbered from 1. The rows are registered with GIO as the error domain
/// ``domain`` (`g_dbus_error_register_error_domain`) in each process that sends a Baton
/// error, so a `GError` made there from a Baton error name carries the domain and number; a
/// program in another language gets the same by registering the same rows.
///
/// An error also travels as a record (`a{sv}`): `code`, `reason`, and for
/// `UserActivityError/userInfoTooLarge(size:limit:)` `size` and `limit`. It is
/// `FailContinuation`'s argument and a peer's failure message, and it follows the message of
/// an app's error replies to batond (``BatonGLib/BusMethodCall/fail(with:sendingRecord:)``),
/// so nothing is read back out of a message's text. Other error replies carry the message
/// alone, which is all a GDBus caller reads.
public enum BatonErrorTable {
    /// One error: its number and D-Bus name.
    public struct Row: Sendable, Hashable {
        public let code: Int32
        public let name: String
    }

    /// The rows, in the order of their numbers. Each error's number and name are written once,
    /// in the core's table of error kinds, which `UserActivityError/code` and ``ServiceError/code``
    /// read too.
    public static let rows: [Row] = BatonErrorKind.allCases.map { Row(code: $0.row.code, name: $0.row.name) }
        .sorted { $0.code < $1.code }

    /// The GError domain the rows are registered in: `baton-error-quark`.
    public static let domain: UInt32 = register()

    /// The D-Bus name of error number `code`.
    public static func name(of code: Int) -> String? {
        BatonErrorKind(code: code)?.row.name
    }

    /// The number of the error named `name`.
    public static func code(named name: String) -> Int? {
        BatonErrorKind(named: name)?.code
    }

    private static func register() -> UInt32 {
        // GIO keeps the domain's and the entries' names without copying them: they are copied
        // once here and live as long as the process.
        let entries = UnsafeMutablePointer<GDBusErrorEntry>.allocate(capacity: rows.count)
        for (index, row) in rows.enumerated() {
            entries[index] = GDBusErrorEntry(error_code: row.code, dbus_error_name: strdup(row.name))
        }
        var quark: gsize = 0
        g_dbus_error_register_error_domain(strdup("baton-error-quark"), &quark, entries, guint(rows.count))
        return UInt32(truncatingIfNeeded: quark)
    }
}
