import Foundation
import ServiceFixtures
import XCTest

/// A flood of idle TCP connections from several loopback addresses against a real batond:
/// while it runs, the paired device relinks within seconds.
@MainActor
final class FloodTests: XCTestCase {
    private var devices: DevicePair!

    override func setUp() async throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        devices = try DevicePair()
        try devices.pair()
    }

    override func tearDown() async throws {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        devices?.tearDown()
    }

    func testAPairedDeviceRelinksWhileIdleConnectionsFloodTheListener() async throws {
        let port = try XCTUnwrap(devices.addressA.split(separator: ":").last.flatMap { UInt16($0) })
        // 4 idle connections from each of 8 loopback addresses, reopened as soon as they are
        // dropped: as many as batond used to allow in all.
        let flood = IdleConnectionFlood(port: port, sources: (2...9).map { "127.0.0.\($0)" }, perSource: 4,
                                        duration: 20)
        flood.start()
        defer { flood.stop() }
        XCTAssertTrue(waitUntil(timeout: 5) { flood.openCount >= 32 }, "the flood holds its connections")
        try await Task.sleep(nanoseconds: 1_000_000_000)

        devices.batondB.stop(SIGKILL)
        _ = devices.batondB.waitForExit(timeout: 5)
        let restarted = Date()
        try devices.startB()
        let relinked = waitUntil(timeout: 15) {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["connected"] as? Bool == true
        }
        let seconds = Date().timeIntervalSince(restarted)
        XCTAssertTrue(relinked, "B relinks with A during the flood")
        XCTAssertLessThan(seconds, 5, "within a few seconds, not after the flood's connections time out")
        print("flood: paired device relinked in \(String(format: "%.2f", seconds)) s with \(flood.openCount) idle connections open, \(flood.reopened) reopened")
        XCTAssertGreaterThan(flood.reopened, 0, "batond drops idle connections (reopened by the flood)")
        XCTAssertTrue(devices.batondA.isRunning)
    }

    /// A flood of connections from one address, each reopened the moment batond drops it, for
    /// 15 s: batond must spend little CPU on it (its utime and stime from `/proc`), while the
    /// paired device, restarted during the flood from another address of the same /24, relinks.
    func testAFloodOfConnectionsFromOneAddressCostsLittleCPUAndThePairedDeviceStillLinks() async throws {
        let port = try XCTUnwrap(devices.addressA.split(separator: ":").last.flatMap { UInt16($0) })
        let pid = devices.batondA.pid
        let before = try XCTUnwrap(CPUTime(pid: pid))
        let flood = IdleConnectionFlood(port: port, sources: ["127.0.0.2"], perSource: 32, duration: 15, pause: 0)
        let started = Date()
        flood.start()
        defer { flood.stop() }
        try await Task.sleep(nanoseconds: 3_000_000_000)

        devices.batondB.stop(SIGKILL)
        _ = devices.batondB.waitForExit(timeout: 5)
        let restarted = Date()
        try devices.startB()
        let relinked = waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["connected"] as? Bool == true
        }
        let seconds = Date().timeIntervalSince(restarted)
        XCTAssertTrue(relinked, "B relinks with A during the flood")
        flood.waitUntilDone()
        let elapsed = Date().timeIntervalSince(started)
        let used = try XCTUnwrap(CPUTime(pid: pid)).seconds - before.seconds
        print(String(format: "flood: %d connections from one address in %.1f s cost batond %.2f s of CPU; "
                     + "the paired device relinked in %.2f s", flood.connections, elapsed, used, seconds))
        XCTAssertLessThan(used, 0.15 * elapsed, "batond spends less than 15% of a core on the flood")
        let lines = devices.batondA.log.split(separator: "\n").filter { $0.contains("over the rate") }
        XCTAssertEqual(lines.count, 1, "one line a minute about connections closed over the rate: \(lines)")
        XCTAssertTrue(devices.batondA.isRunning)
    }
}

/// A process's CPU time so far, user and system, from `/proc/PID/stat`.
struct CPUTime {
    let seconds: Double

    init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")") else { return nil }
        // After the command's ")": state is field 3, utime and stime fields 14 and 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        seconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// Idle TCP connections from given loopback addresses, each reopened when the server drops
/// it, on a thread of their own, for at most `duration` seconds.
final class IdleConnectionFlood: @unchecked Sendable {
    private let port: UInt16
    private let sources: [String]
    private let perSource: Int
    private let duration: Double
    /// Seconds between two passes over the connections: 0 reopens each the moment it is dropped.
    private let pause: Double
    private let lock = NSLock()
    private var stopped = false
    private var open = 0
    private var reopenCount = 0
    private var connectCount = 0
    private let finished = DispatchSemaphore(value: 0)

    init(port: UInt16, sources: [String], perSource: Int, duration: Double, pause: Double = 0.05) {
        self.port = port
        self.sources = sources
        self.perSource = perSource
        self.duration = duration
        self.pause = pause
    }

    var openCount: Int { lock.withLock { open } }
    var reopened: Int { lock.withLock { reopenCount } }
    /// The connections made so far.
    var connections: Int { lock.withLock { connectCount } }

    func start() {
        Thread.detachNewThread { [self] in
            run()
            finished.signal()
        }
    }

    /// Waits until the flood has run its duration.
    func waitUntilDone() {
        finished.wait()
        finished.signal()
    }

    /// Stops the flood (once; later calls return at once) and waits for its thread.
    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if first { finished.wait() }
    }

    private func run() {
        var sockets = sources.flatMap { source in (0..<perSource).map { _ in (source, Int32(-1)) } }
        let deadline = Date().addingTimeInterval(duration)
        while Date() < deadline, !lock.withLock({ stopped }) {
            for index in sockets.indices {
                let (source, descriptor) = sockets[index]
                if descriptor >= 0, isAlive(descriptor) { continue }
                if descriptor >= 0 {
                    close(descriptor)
                    lock.withLock { reopenCount += 1 }
                }
                sockets[index].1 = connect(from: source)
                if sockets[index].1 >= 0 { lock.withLock { connectCount += 1 } }
            }
            lock.withLock { open = sockets.filter { $0.1 >= 0 }.count }
            if pause > 0 {
                usleep(useconds_t(pause * 1_000_000))
            } else {
                var entries = sockets.filter { $0.1 >= 0 }.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
                _ = poll(&entries, nfds_t(entries.count), 10)
            }
        }
        for (_, descriptor) in sockets where descriptor >= 0 { close(descriptor) }
        lock.withLock { open = 0 }
    }

    /// Whether the server still holds `descriptor` open (no end of stream, no error).
    private func isAlive(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        if count == 0 { return false }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK }
        return true
    }

    private func connect(from source: String) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        // Reopening at once, connections are made without waiting for batond to take them.
        if pause == 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 || (pause == 0 && errno == EINPROGRESS) else {
            close(descriptor)
            return -1
        }
        return descriptor
    }
}
