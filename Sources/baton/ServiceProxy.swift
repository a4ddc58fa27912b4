import ArgumentParser
import BatonBus
import BatonGLib
import Foundation

/// Calls batond on the session bus and turns failures into a message on stderr and a
/// non-zero exit.
@MainActor
enum ServiceProxy {
    /// Makes `call` of `org.baton.Daemon1`, letting D-Bus activation start batond.
    ///
    /// - Parameter timeout: seconds to wait; `nil` for no limit.
    static func call<Reply>(_ call: DaemonCall<Reply>, timeout: Double? = 25) throws -> Reply {
        let connection: BusConnection
        do {
            connection = try BusConnection.session()
        } catch {
            throw CommandFailure("no D-Bus session bus: \(error)")
        }
        do {
            return try DaemonClient(connection: connection).callSync(call, timeout: timeout)
        } catch let error as BusError {
            if error.remoteName == "org.freedesktop.DBus.Error.ServiceUnknown" {
                throw CommandFailure("the Baton service is not running (start batond, or install its D-Bus service file)")
            }
            throw CommandFailure(error.remoteName.map { _ in error.message } ?? error.description)
        }
    }
}

/// A failure to report: the message goes to stderr and the command exits with status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Runs a command body on the main actor (commands run on the main thread), printing a
/// ``CommandFailure`` as `baton: message` on stderr with exit status 1.
func runOnMain(_ body: @MainActor () throws -> Void) throws {
    do {
        try MainActor.assumeIsolated { try body() }
    } catch let failure as CommandFailure {
        FileHandle.standardError.write(Data("baton: \(TerminalText.printable(failure.description))\n".utf8))
        throw ExitCode.failure
    }
}
