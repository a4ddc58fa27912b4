import Baton
import BatonGLib

/// The one client of batond's `org.baton.Daemon1`, for HandoffClient, the browser host, the
/// Baton app and `baton`: it makes a ``DaemonCall`` on a connection and reads its reply.
///
/// A failed call throws the `BusError` it came with, so its message and D-Bus error name are
/// the service's; ``ServiceError/userActivityError(from:)`` and `BusError.batonErrorKind` read
/// Baton's errors through the error table.
@MainActor
package struct DaemonClient {
    /// batond's signals that say something it lists changed.
    package enum Signal: String, CaseIterable, Sendable {
        case activitiesChanged = "ActivitiesChanged"
        case devicesChanged = "DevicesChanged"
        case settingsChanged = "SettingsChanged"
    }

    /// The connection the calls go out on.
    package let connection: BusConnection
    /// Whom the calls go to: batond's well-known name, or the unique name of its owner once
    /// that proved to be batond (`ServiceOwnerCheck`).
    package let destination: String

    package init(connection: BusConnection, destination: String = BatonService.busName) {
        self.connection = connection
        self.destination = destination
    }

    /// Makes `call` and waits for its reply, without blocking the main loop.
    ///
    /// - Parameters:
    ///   - autoStart: whether the bus may start batond through D-Bus activation.
    ///   - timeout: seconds to wait for the reply.
    package func call<Reply>(_ call: DaemonCall<Reply>, autoStart: Bool = false, timeout: Double = 25) async throws -> Reply {
        call.decode(try await connection.call(destination, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                                              method: call.method, arguments: call.arguments, autoStart: autoStart,
                                              timeout: timeout))
    }

    /// Makes `call`, sent before this returns, so that calls on one connection reach batond in
    /// the order they were made, and gives its reply to `completion`.
    package func send<Reply>(_ call: DaemonCall<Reply>, timeout: Double = 25,
                             completion: @escaping @MainActor (Result<Reply, any Error>) -> Void) {
        connection.call(destination, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                        method: call.method, arguments: call.arguments, timeout: timeout) { result in
            MainActor.assumeIsolated { completion(result.map(call.decode)) }
        }
    }

    /// Makes `call` and blocks until its reply, letting D-Bus activation start batond: for
    /// `baton`, which has no main loop.
    ///
    /// - Parameter timeout: seconds to wait; `nil` waits as long as it takes.
    package func callSync<Reply>(_ call: DaemonCall<Reply>, timeout: Double? = 25) throws -> Reply {
        call.decode(try connection.callSync(destination, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                                            method: call.method, arguments: call.arguments, autoStart: true, timeout: timeout))
    }

    /// Runs `handler` whenever batond emits `signal`. Returns the subscription's id, for
    /// `BusConnection.unsubscribe(_:)`.
    @discardableResult
    package func subscribe(to signal: Signal, handler: @escaping @MainActor () -> Void) -> UInt32 {
        connection.subscribe(sender: BatonService.busName, interface: BatonService.daemonInterface, member: signal.rawValue,
                             path: BatonService.daemonPath) { _, _ in handler() }
    }
}

extension BusError {
    /// The Baton error (`BatonErrorKind`) batond answered with, read from the error's D-Bus
    /// name through the error table; `nil` for an error of another name or no reply.
    package var batonErrorKind: BatonErrorKind? {
        remoteName.flatMap(BatonErrorKind.init(named:))
    }
}
