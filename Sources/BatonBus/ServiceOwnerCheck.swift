import BatonGLib
import Foundation

/// Whether the owner of batond's bus name is batond: an app hands activities only to it.
///
/// While batond is not running, any process on the session bus can own its name and ask
/// apps to save their activities. The owner is batond when its process runs as this user and
/// runs the program the installed D-Bus service file of the name (`Exec=` of
/// `dbus-1/services/org.baton.Daemon.service` under `$XDG_DATA_HOME` and `$XDG_DATA_DIRS`)
/// names, or, with no service file installed, a program whose file name is `batond`.
package enum ServiceOwnerCheck {
    /// The file name of batond's program.
    package static let programName = "batond"

    /// Checks the process behind `owner`.
    ///
    /// - Throws: ``ServiceError/accessDenied(_:)`` saying why it is not batond.
    @MainActor
    package static func verify(_ owner: String, on connection: BusConnection) async throws {
        let credentials: BusPeerCredentials
        do {
            credentials = try await connection.peerCredentials(of: owner)
        } catch {
            throw ServiceError.accessDenied("the bus did not say which process owns \(BatonService.busName): \(error)")
        }
        try check(credentials, serviceExec: DBusServiceFiles.exec(forName: BatonService.busName),
                  searchPath: ProcessExecutable.searchPath)
    }

    /// The rule, on what the bus and `/proc` said and the service file's `Exec=` (`nil` when
    /// none is installed).
    ///
    /// - Throws: ``ServiceError/accessDenied(_:)`` saying why it is not batond.
    package static func check(_ credentials: BusPeerCredentials, serviceExec: String?, searchPath: String?) throws {
        guard credentials.isSameUser else {
            throw ServiceError.accessDenied("its process \(credentials.pid) runs as another user (uid \(credentials.uid))")
        }
        guard let executable = credentials.executable else {
            throw ServiceError.accessDenied("the program of its process \(credentials.pid) cannot be read")
        }
        if let serviceExec {
            guard let program = ExecLine.program(of: serviceExec),
                  ProcessExecutable.executable(executable, is: program, searchPath: searchPath) else {
                throw ServiceError.accessDenied("its process runs \(executable), not the \(serviceExec) "
                    + "of the installed D-Bus service file")
            }
        } else {
            guard URL(fileURLWithPath: executable).lastPathComponent == programName else {
                throw ServiceError.accessDenied("its process runs \(executable), not \(programName)")
            }
        }
    }
}
