import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plays the network between one device and the relay: a TCP forwarder from where that
/// device's relay address points to the relay, holding every chunk `delay` seconds in each
/// direction: the relay figures' added delay, as netem would add it (this machine's kernel has
/// no netem).
///
/// Each direction of a connection has a reader, which timestamps what it reads into a queue
/// and reads on at once, and a writer, which sends each chunk at its timestamp + `delay`: the
/// order is kept and the throughput is not limited, only delayed. It runs on threads of its
/// own, off the main loop, so that the benchmark's work there (the apps, the floor's ends)
/// does not move its timing.
final class DelayForwarder: @unchecked Sendable {
    let delay: Double
    private let listener: Int32
    private let target: sockaddr_in
    /// Guards `connections` and `stopped`; the threads share nothing else.
    private let lock = NSLock()
    private var connections: Set<Int32> = []
    private var stopped = false

    /// Listens on `host:port` and forwards each connection to `targetHost:targetPort`.
    init(host: String, port: UInt16, targetHost: String, targetPort: UInt16, delay: Double) throws {
        self.delay = delay
        target = try Loopback.address(host: targetHost, port: targetPort)
        listener = try Loopback.listeningSocket(host: host, port: port)
        Thread { [self] in acceptConnections() }.start()
    }

    /// Stops listening and ends every connection through it.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        // Wakes the accepting thread, which closes the listener; each connection's threads
        // see their sockets end and close them.
        shutdown(listener, Int32(SHUT_RDWR))
        for socket in connections { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func acceptConnections() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard let upstream = try? Loopback.connect(to: target) else {
                close(client)
                continue
            }
            lock.lock()
            let open = !stopped
            if open { connections.formUnion([client, upstream]) }
            lock.unlock()
            guard open else {
                close(client)
                close(upstream)
                return
            }
            Loopback.sendAtOnce(client)
            Loopback.sendAtOnce(upstream)
            // Two directions, each with a reader and a writer: the fourth to end closes both sockets.
            let remaining = Countdown(4) { [self] in
                lock.lock()
                connections.subtract([client, upstream])
                lock.unlock()
                close(client)
                close(upstream)
            }
            DelayedDirection(from: client, to: upstream, delay: delay) { remaining.tick() }.start()
            DelayedDirection(from: upstream, to: client, delay: delay) { remaining.tick() }.start()
        }
    }
}

/// One direction of a forwarded connection: a reader thread queueing chunks with the time
/// each is due, a writer thread sending each when due. A chunk of `nil` is the end: the
/// writer ends its side of the destination (a FIN, as the source sent one).
private final class DelayedDirection: @unchecked Sendable {
    private let source: Int32
    private let destination: Int32
    private let delay: UInt64
    private let ended: @Sendable () -> Void
    /// Guards `queue`, and wakes the writer when a chunk comes.
    private let condition = NSCondition()
    private var queue: [(due: UInt64, bytes: [UInt8]?)] = []

    init(from source: Int32, to destination: Int32, delay: Double, ended: @escaping @Sendable () -> Void) {
        self.source = source
        self.destination = destination
        self.delay = UInt64(delay * 1_000_000_000)
        self.ended = ended
    }

    func start() {
        Thread { [self] in read() }.start()
        Thread { [self] in write() }.start()
    }

    private func read() {
        defer { ended() }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            let chunk = count > 0 ? Array(buffer[0..<count]) : nil
            let due = monotonicNanoseconds() + delay
            condition.lock()
            queue.append((due, chunk))
            condition.signal()
            condition.unlock()
            if chunk == nil { return }
        }
    }

    private func write() {
        defer { ended() }
        var failed = false
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let (due, chunk) = queue.removeFirst()
            condition.unlock()
            sleepUntil(due)
            guard let chunk else {
                shutdown(destination, Int32(SHUT_WR))
                return
            }
            // A destination gone ends the connection both ways; what the reader still reads
            // is dropped until it sees the end.
            if !failed && !sendAll(chunk) {
                failed = true
                shutdown(source, Int32(SHUT_RDWR))
                shutdown(destination, Int32(SHUT_RDWR))
            }
        }
    }

    private func sendAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                // MSG_NOSIGNAL: a peer gone is an error here, not a SIGPIPE for the whole benchmark.
                let count = send(destination, buffer.baseAddress?.advanced(by: sent), buffer.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }
}

/// Runs `body` once `tick` has been called `count` times, from any threads.
private final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int
    private let body: @Sendable () -> Void

    init(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        self.count = count
        self.body = body
    }

    func tick() {
        lock.lock()
        count -= 1
        let done = count == 0
        lock.unlock()
        if done { body() }
    }
}

private func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Sleeps until `deadline` on the monotonic clock (at once when it passed).
private func sleepUntil(_ deadline: UInt64) {
    var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
}
