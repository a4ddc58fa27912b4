import Baton
import BatonBus
import BatonGLib
import Foundation
import Logging

/// The Baton app's view of batond, through the same D-Bus API as `baton`: what it lists,
/// kept fresh by batond's signals (no polling), and the calls that change things.
@MainActor
final class ServiceClient {
    /// `GetStatus`, `GetSettings`, `ListDevices`, `ListActivities`, `ListApps` and
    /// `Diagnose` (after the checks of how batond is installed and started), as last read.
    private(set) var status: [String: BusValue] = [:]
    private(set) var settings: [String: BusValue] = [:]
    private(set) var devices: [[String: BusValue]] = []
    private(set) var activities: [[String: BusValue]] = []
    private(set) var apps: [[String: BusValue]] = []
    private(set) var diagnosis: [[String: BusValue]] = []
    /// Whether batond is on the bus.
    private(set) var isRunning = false
    /// Why the last read failed, if it did.
    private(set) var problem: String?
    /// Called after every refresh.
    var onChange: () -> Void = {}

    private let daemon: DaemonClient
    private let logger = Logger(label: "baton-app")
    private lazy var refresher = SerialRefresh { [weak self] in await self?.readAll() }

    init() throws {
        let connection = try BusConnection.session()
        daemon = DaemonClient(connection: connection)
        for signal in DaemonClient.Signal.allCases {
            daemon.subscribe(to: signal) { [weak self] in self?.refresh() }
        }
        connection.watchName(BatonService.busName, autoStart: true, appeared: { [weak self] _ in
            self?.isRunning = true
            self?.refresh()
        }, vanished: { [weak self] in
            guard let self else { return }
            isRunning = false
            problem = "The Baton service is not running."
            onChange()
        })
    }

    /// Reads everything again; a refresh asked for while one runs runs once after it.
    func refresh() {
        refresher.request()
    }

    private func readAll() async {
        do {
            status = try await call(.getStatus)
            settings = try await call(.getSettings)
            devices = try await call(.listDevices)
            activities = try await call(.listActivities)
            apps = try await call(.listApps)
            let pid = status["pid"].flatMap { if case .int64(let value) = $0 { value } else { nil } }
            diagnosis = [ServiceSetupChecks.running(true, pid: pid), ServiceSetupChecks.serviceFile(),
                         ServiceSetupChecks.sessionStart()].map(\.record)
                + (try await call(.diagnose))
            problem = nil
        } catch {
            problem = "Could not read from the Baton service: \(Self.message(of: error))"
        }
        onChange()
    }

    /// Makes `call` of batond; a failure comes back as its message, for the person.
    func perform<Reply>(_ call: DaemonCall<Reply>, timeout: Double = 25) async throws -> Reply {
        do {
            return try await self.call(call, timeout: timeout)
        } catch {
            throw ServiceFailure(message: Self.message(of: error), kind: (error as? BusError)?.batonErrorKind)
        }
    }

    private func call<Reply>(_ call: DaemonCall<Reply>, timeout: Double = 25) async throws -> Reply {
        try await daemon.call(call, autoStart: true, timeout: timeout)
    }

    private static func message(of error: any Error) -> String {
        (error as? BusError).map { $0.remoteName == nil ? $0.description : $0.message } ?? "\(error)"
    }
}

/// A call batond refused, with its message.
struct ServiceFailure: Error, CustomStringConvertible {
    let message: String
    /// The Baton error batond answered with (`org.baton.Error.ConnectionUnavailable` reads
    /// as `.connectionUnavailable`), if any.
    var kind: BatonErrorKind?
    var description: String { message }
}
