import BatonGLib
import Foundation

/// Moving a started app into a transient scope of the systemd user manager, as GNOME does
/// (gnome-desktop's `gnome_start_systemd_scope`): `StartTransientUnit` on
/// `org.freedesktop.systemd1.Manager`, `(ssa(sv)a(sa(sv)))`, naming a scope
/// `app-<escaped app id>-<random>.scope` with the process in `PIDs`. The app then lives in a
/// control group of its own, so stopping or restarting `batond.service` leaves it running.
enum SystemdScope {
    static let busName = "org.freedesktop.systemd1"
    static let path = "/org/freedesktop/systemd1"
    static let interface = "org.freedesktop.systemd1.Manager"
    /// The longest unit name systemd accepts, suffix included (`UNIT_NAME_MAX`).
    static let maximumUnitNameLength = 255

    /// Whether a systemd user manager is on the bus: `org.freedesktop.systemd1` has an owner.
    /// A bus that cannot say counts as none.
    @MainActor
    static func managerIsPresent(on connection: BusConnection) async -> Bool {
        let reply = try? await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", method: "NameHasOwner",
                                               arguments: [.string(busName)], timeout: 2)
        return reply?.first?.bool ?? false
    }

    /// Asks the manager to put process `pid` into the new scope `unit`.
    ///
    /// - Returns: the path of the job that starts the scope.
    /// - Throws: ``BusError`` when the manager refuses or does not answer in time.
    @MainActor
    static func start(_ unit: String, pid: Int32, description: String, on connection: BusConnection) async throws -> String {
        let reply = try await connection.call(busName, path: path, interface: interface, method: "StartTransientUnit",
                                              arguments: arguments(unit: unit, pid: pid, description: description),
                                              timeout: 5)
        return reply.first?.objectPath ?? ""
    }

    /// The arguments of `StartTransientUnit`: the unit, mode `fail` (never replace a queued
    /// job), its properties (`PIDs`, `Description`, `CollectMode=inactive-or-failed`, so a
    /// crashed app's scope is not kept), and no auxiliary units.
    static func arguments(unit: String, pid: Int32, description: String) -> [BusValue] {
        let properties: [BusValue] = [
            .tuple([.string("Description"), .variant(.string(description))]),
            .tuple([.string("PIDs"), .variant(.array(elementType: "u", [.uint32(UInt32(bitPattern: pid))]))]),
            .tuple([.string("CollectMode"), .variant(.string("inactive-or-failed"))]),
        ]
        return [.string(unit), .string("fail"), .array(elementType: "(sv)", properties),
                .array(elementType: "(sa(sv))", [])]
    }

    /// `app-<escaped app id>-<random>.scope`, as systemd's desktop-environment conventions
    /// name an application's scope: the app id escaped (``escape(_:)``) so that it holds no
    /// `-` and can be read back, shortened (at whole escapes) to keep the name within
    /// ``maximumUnitNameLength``; `random` as 8 hex digits.
    static func unitName(appID: String, random: UInt32 = .random(in: .min ... .max)) -> String {
        let suffix = "-" + String(format: "%08x", random) + ".scope"
        let room = maximumUnitNameLength - "app-".count - suffix.count
        var escaped = ""
        for piece in escapedPieces(appID.isEmpty ? "unknown" : appID) {
            guard escaped.utf8.count + piece.utf8.count <= room else { break }
            escaped += piece
        }
        return "app-" + escaped + suffix
    }

    /// `value` escaped for a unit name as `systemd-escape` does: ASCII letters, digits, `:`,
    /// `_` and `.` (but a leading `.`) stay, every other byte of its UTF-8 becomes `\xNN`,
    /// `-` thus `\x2d`. (`systemd-escape` turns `/` into `-`; an app id has no `/`, and here
    /// it would be `\x2f`.)
    static func escape(_ value: String) -> String { escapedPieces(value).joined() }

    private static func escapedPieces(_ value: String) -> [String] {
        value.utf8.enumerated().map { index, byte in
            let kept = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && index > 0)
            return kept ? String(UnicodeScalar(byte)) : String(format: "\\x%02x", byte)
        }
    }
}
