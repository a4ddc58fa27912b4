import Baton
import BatonBus
import BatonGLib
import Foundation

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One device: a private session bus and batond on it.
final class Device {
    let root: URL
    let bus: Process
    var batond: Process?
    let address: String

    init(name: String) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("baton-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let config = root.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:dir=\(root.path)</listen>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
            <allow own="*"/></policy></busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        let addressFile = root.appendingPathComponent("bus.address")
        _ = FileManager.default.createFile(atPath: addressFile.path, contents: nil)
        bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file", config.path, "--nofork", "--print-address=1"]
        bus.standardOutput = try FileHandle(forWritingTo: addressFile)
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        var text = ""
        for _ in 0..<500 where !text.contains("\n") {
            usleep(10_000)
            text = (try? String(contentsOf: addressFile, encoding: .utf8)) ?? ""
        }
        guard text.contains("\n") else { throw BenchmarkFailure("dbus-daemon did not start") }
        address = text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// batond's log so far.
    var log: String { (try? String(contentsOf: root.appendingPathComponent("batond.log"), encoding: .utf8)) ?? "" }

    /// The medians of the step times (ms) batond logged at debug level in lines containing
    /// `marker`, by step name: `"… timing (ms): claim 0.012, Save 0.4"`.
    func loggedTimings(_ marker: String) -> [String: Double] {
        var steps: [String: [Double]] = [:]
        for line in log.split(separator: "\n") where line.contains(marker) {
            guard let list = line.split(separator: ":").last else { continue }
            // Each number belongs to the word before it.
            let words = list.split(whereSeparator: { $0 == " " || $0 == "," })
            for (name, value) in zip(words, words.dropFirst()) where Double(name) == nil {
                if let number = Double(value) { steps[String(name), default: []].append(number) }
            }
        }
        return steps.mapValues { median($0) }
    }

    /// Starts batond; in the network namespace `namespace` (`ip netns exec`) when given.
    func startBatond(_ executable: String, arguments: [String], logLevel: String = "warning", listen: String = "127.0.0.1:0",
                     environment extra: [String: String] = [:], namespace: String? = nil) throws {
        let process = Process()
        let batondArguments = ["--listen", listen, "--no-discovery", "--log-level", logLevel,
                               "--state-dir", root.appendingPathComponent("state").path,
                               "--config-dir", root.appendingPathComponent("config").path] + arguments
        if let namespace {
            process.executableURL = URL(fileURLWithPath: NamespacePair.ip)
            process.arguments = ["netns", "exec", namespace, executable] + batondArguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = batondArguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["XDG_DATA_DIRS"] = root.path
        environment["XDG_DATA_HOME"] = root.path
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: {
            let log = root.appendingPathComponent("batond.log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            return log
        }())
        try process.run()
        batond = process
    }

    /// Installs a desktop entry for `appID` naming this program and declaring the benchmark's
    /// claims, so batond verifies this process as that app for them: only an app verified
    /// for an activity type receives another device's activity of that type.
    func installEntry(for appID: String, team: String, activityType: String) throws {
        let folder = root.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let program = ProcessExecutable.path(of: getpid()) ?? CommandLine.arguments[0]
        try "[Desktop Entry]\nType=Application\nName=\(appID)\nExec=\(program)\nX-Baton-TeamID=\(team)\nX-Baton-ActivityTypes=\(activityType);\n"
            .write(to: folder.appendingPathComponent("\(appID).desktop"), atomically: true, encoding: .utf8)
    }

    /// Stops batond, leaving the bus, state and settings for the next one.
    func stopBatond() {
        guard let process = batond else { return }
        batond = nil
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    func stop() {
        for process in [batond, bus].compactMap({ $0 }) where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }
}

@MainActor
func daemonCall(_ connection: BusConnection, _ method: String, _ arguments: [BusValue] = []) async throws -> [BusValue] {
    try await connection.call(BatonService.busName, path: BatonService.daemonPath,
                              interface: BatonService.daemonInterface, method: method, arguments: arguments, timeout: 30)
}

@MainActor
func waitFor(_ what: String, timeout: Double = 15, _ check: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try await !check() {
        guard Date() < deadline else { throw BenchmarkFailure("timed out waiting for \(what)") }
        try await Task.sleep(nanoseconds: 5_000_000)
    }
}

/// Plays an app on one device: registered with batond, answering its calls at once.
@MainActor
final class BenchApp {
    let connection: BusConnection
    var payload: [UInt8] = []
    var restored = 0
    /// Answers continuation streams, when set.
    var streamOrigin: StreamOriginApp?
    /// Runs before the app answers `CompleteContinuation`, with the continuation's token.
    var whileContinuing: ((String) async throws -> Void)?

    init(connection: BusConnection, appID: String) async throws {
        self.connection = connection
        _ = try connection.export(path: BatonService.applicationPath, interface: BatonService.applicationInterface,
                                  introspectionXML: BatonService.applicationIntrospectionXML) { [weak self] call in
            guard let self else { return }
            switch call.method {
            case "Save": call.reply([.bytes(self.payload)])
            case "CompleteContinuation":
                self.restored += 1
                guard let work = self.whileContinuing else { return call.reply() }
                let token = call.arguments.at(0)?.string ?? ""
                Task { @MainActor in
                    do {
                        try await work(token)
                        call.reply()
                    } catch {
                        call.fail(name: "org.bench.Error", message: "\(error)")
                    }
                }
            case "ReceiveContinuationStream":
                guard let origin = self.streamOrigin else { return call.fail(name: "org.bench.Error", message: "no streams") }
                origin.receive(call)
            default: call.reply()
            }
        }
        _ = try await daemonCall(connection, "Register", [.string(appID), .string(team), .strings([activityType])])
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func percentile90(_ values: [Double]) -> Double { values.sorted()[min(values.count - 1, values.count * 9 / 10)] }
func milliseconds(_ seconds: Double) -> String { String(format: "%8.2f ms", seconds * 1000) }

/// Pairs two running, linked batonds as a person would: `requester` asks for `responderID`,
/// each side shows its code, and each confirms with the code the other shows.
@MainActor
func pair(requester: BusConnection, responder: BusConnection, responderID: String, requesterID: String) async throws {
    let shownByRequester = try await daemonCall(requester, "Pair", [.string(responderID)]).at(1)?.string ?? ""
    var shownByResponder = ""
    try await waitFor("the responder's pairing code") {
        let devices = (try? await daemonCall(responder, "ListDevices"))?.first?.dictionaries ?? []
        shownByResponder = devices.first { $0["id"]?.string == requesterID }?["pairing-code"]?.string ?? ""
        return !shownByResponder.isEmpty
    }
    _ = try await daemonCall(responder, "ConfirmPair", [.string(requesterID), .string(shownByRequester)])
    _ = try await daemonCall(requester, "ConfirmPair", [.string(responderID), .string(shownByResponder)])
}

/// The device id and listening address of the batond on `bus`, once it answers.
@MainActor
func batondStatus(of bus: BusConnection) async throws -> (id: String, listen: String) {
    var status: [String: BusValue] = [:]
    try await waitFor("batond") {
        status = (try? await daemonCall(bus, "GetStatus"))?.first?.dictionary ?? [:]
        return status["listen"] != nil
    }
    return (status["device-id"]?.string ?? "", status["listen"]?.string ?? "")
}
