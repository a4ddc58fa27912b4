import Baton
import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation

// Baton's network figures, in one run on loopback: two real batonds (each with its own
// session bus, identity and pairings, linked over pinned TLS 1.3), with this process playing
// the app on each device over D-Bus and answering at once, so the figures are the service's.
//
//   offer propagation:    PublishCurrent on A (what becomeCurrent sends) -> listed on B
//   continuation latency: Continue on B -> the app on B was handed the activity it restored
//   floor:                a bare TLS request/response with the same payload size, through the
//                         same GIO TLS stack: on a fresh connection (handshake included), and
//                         on one kept open
//
//     swift build --product batond && swift build -c release --package-path Benchmarks
//     Benchmarks/.build/release/PeerBenchmarks .build/debug/batond

let samples = 40
let activityType = "org.bench.document"
let team = "org.bench"

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

    func startBatond(_ executable: String, arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--listen", "127.0.0.1:0", "--no-discovery", "--log-level", "warning",
                             "--state-dir", root.appendingPathComponent("state").path,
                             "--config-dir", root.appendingPathComponent("config").path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["XDG_DATA_DIRS"] = root.path
        environment["XDG_DATA_HOME"] = root.path
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

    init(connection: BusConnection, appID: String) async throws {
        self.connection = connection
        _ = try connection.export(path: BatonService.applicationPath, interface: BatonService.applicationInterface,
                                  introspectionXML: BatonService.applicationIntrospectionXML) { [weak self] call in
            guard let self else { return }
            switch call.method {
            case "Save": call.reply([.bytes(self.payload)])
            case "CompleteContinuation":
                self.restored += 1
                call.reply()
            default: call.reply()
            }
        }
        _ = try await daemonCall(connection, "Register", [.string(appID), .string(team), .strings([activityType])])
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func percentile90(_ values: [Double]) -> Double { values.sorted()[min(values.count - 1, values.count * 9 / 10)] }
func milliseconds(_ seconds: Double) -> String { String(format: "%8.2f ms", seconds * 1000) }

@MainActor
func measureFloor(payloadSize: Int) async throws -> (cold: [Double], warm: [Double]) {
    // The floor's two ends stand for a paired pair: trusted links (full frame size, activity messages).
    let server = try PeerTLS(identity: try DeviceIdentity.generate())
    let client = try PeerTLS(identity: try DeviceIdentity.generate())
    let listener = try PeerListener(host: "127.0.0.1", port: 0)
    let response = PeerMessage.payload(request: 1, bytes: Array(repeating: 0x5a, count: payloadSize))
    listener.onConnection = { connection in
        Task { @MainActor in
            guard let link = try? await server.accept(connection) else { return }
            link.isTrusted = true
            link.onMessage = { _ in link.send(response) }
            link.start()
        }
    }
    func roundTrip(_ link: PeerLink) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            var done = false
            link.onMessage = { _ in
                guard !done else { return }
                done = true
                continuation.resume()
            }
            link.onClose = { reason in
                guard !done else { return }
                done = true
                continuation.resume(throwing: BenchmarkFailure(reason))
            }
            link.send(.fetch(request: 1, activityID: "floor"))
        }
    }
    var cold: [Double] = []
    for _ in 0..<samples {
        let start = Date()
        let link = try await client.connect(to: listener.address)
        link.isTrusted = true
        link.start()
        try await roundTrip(link)
        cold.append(Date().timeIntervalSince(start))
        link.close("done")
    }
    let link = try await client.connect(to: listener.address)
    link.isTrusted = true
    link.start()
    var warm: [Double] = []
    for _ in 0..<samples {
        let start = Date()
        try await roundTrip(link)
        warm.append(Date().timeIntervalSince(start))
    }
    link.close("done")
    withExtendedLifetime(listener) {}
    return (cold, warm)
}

@MainActor
func run(batond: String) async throws {
    let a = try Device(name: "a")
    let b = try Device(name: "b")
    defer { a.stop(); b.stop() }
    try a.startBatond(batond, arguments: ["--name", "alpha"])
    let busA = try BusConnection.bus(at: a.address)
    let busB = try BusConnection.bus(at: b.address)
    var statusA: [String: BusValue] = [:]
    try await waitFor("batond A") {
        statusA = (try? await daemonCall(busA, "GetStatus"))?.first?.dictionary ?? [:]
        return statusA["listen"] != nil
    }
    try b.startBatond(batond, arguments: ["--name", "beta", "--peer", statusA["listen"]?.string ?? ""])
    try await waitFor("the link between A and B") {
        let devices = (try? await daemonCall(busB, "ListDevices"))?.first?.dictionaries ?? []
        return devices.contains { $0["connected"]?.bool == true }
    }
    // Each device shows its own code; each is confirmed with the code the other shows.
    let codeB = try await daemonCall(busB, "Pair", [.string("alpha")]).at(1)?.string ?? ""
    var codeA = ""
    try await waitFor("A's pairing code") {
        let devices = (try? await daemonCall(busA, "ListDevices"))?.first?.dictionaries ?? []
        codeA = devices.lazy.compactMap { $0["pairing-code"]?.string }.first ?? ""
        return !codeA.isEmpty
    }
    _ = try await daemonCall(busA, "ConfirmPair", [.string("beta"), .string(codeB)])
    _ = try await daemonCall(busB, "ConfirmPair", [.string("alpha"), .string(codeA)])

    let origin = try await BenchApp(connection: busA, appID: "org.bench.Origin")
    try b.installEntry(for: "org.bench.Target", team: team, activityType: activityType)
    let target = try await BenchApp(connection: busB, appID: "org.bench.Target")
    let text = String(repeating: "A draft long enough to look like one. ", count: 40)
    origin.payload = Array(try UserActivityPayload(activityType: activityType, title: "bench",
                                                   userInfo: ["body": .string(text)]).encoded())

    var propagation: [Double] = []
    var listedOnB: String?
    for index in 0..<(samples + 3) {
        let title = "bench \(index)"
        let start = Date()
        _ = try await daemonCall(busA, "PublishCurrent", [.string("doc-\(index)"),
                                                          .dictionary(["type": .string(activityType), "title": .string(title)])])
        try await waitFor("the offer on B", timeout: 5) {
            let listing = try await daemonCall(busB, "ListActivities").first?.dictionaries ?? []
            listedOnB = listing.first { $0["title"]?.string == title }?["id"]?.string
            return listedOnB != nil
        }
        if index >= 3 { propagation.append(Date().timeIntervalSince(start)) }
    }
    guard let offerID = listedOnB else { throw BenchmarkFailure("nothing listed on B") }

    var continuation: [Double] = []
    for index in 0..<(samples + 3) {
        let start = Date()
        _ = try await daemonCall(busB, "Continue", [.string(offerID)])
        if index >= 3 { continuation.append(Date().timeIntervalSince(start)) }
    }
    guard target.restored == samples + 3 else { throw BenchmarkFailure("the app on B restored \(target.restored) times") }

    let floor = try await measureFloor(payloadSize: origin.payload.count)
    print("Baton network figures: two batonds on loopback, pinned TLS 1.3 (GIO + glib-networking), \(samples) samples each")
    print("batond: \(batond); payload \(origin.payload.count) bytes; apps played by this process, answering at once")
    print("")
    print("                                            median        p90")
    print("offer propagation (publish on A -> on B)  \(milliseconds(median(propagation)))  \(milliseconds(percentile90(propagation)))   target < 100 ms: \(median(propagation) < 0.1 ? "PASS" : "MISS")")
    print("continuation (continue on B -> restored)  \(milliseconds(median(continuation)))  \(milliseconds(percentile90(continuation)))")
    print("floor: TLS request/response, new link     \(milliseconds(median(floor.cold)))  \(milliseconds(percentile90(floor.cold)))")
    print("floor: TLS request/response, open link    \(milliseconds(median(floor.warm)))  \(milliseconds(percentile90(floor.warm)))")
    let ratio = median(continuation) / median(floor.cold)
    print(String(format: "continuation / floor (new link): %.2fx   target < 3x: %@", ratio, ratio < 3 ? "PASS" : "MISS"))
    print(String(format: "continuation / floor (open link): %.1fx (the open link is what batond uses; the rest is D-Bus and the apps)",
                 median(continuation) / median(floor.warm)))
    withExtendedLifetime((origin, target, busA, busB)) {}
}

let arguments = CommandLine.arguments.dropFirst()
guard let batond = arguments.first else {
    FileHandle.standardError.write(Data("usage: PeerBenchmarks PATH-TO-BATOND\n".utf8))
    exit(2)
}
let status: Int32 = MainActor.assumeIsolated {
    MainQueueBridge.install()
    let loop = g_main_loop_new(nil, 0)
    var status: Int32 = 0
    Task { @MainActor in
        do {
            try await run(batond: batond)
        } catch {
            FileHandle.standardError.write(Data("network benchmarks failed: \(error)\n".utf8))
            status = 1
        }
        g_main_loop_quit(loop)
    }
    g_main_loop_run(loop)
    g_main_loop_unref(loop)
    return status
}
exit(status)
