import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// Plays the origin app's part: answers each stream with `size` bytes.
@MainActor
final class StreamOriginApp {
    var size = 0
    private var streams: [SocketContinuationStream] = []

    func receive(_ call: BusMethodCall) {
        guard case .fileDescriptor(let handle)? = call.arguments.at(1), let descriptor = handle.take() else {
            return call.fail(name: "org.bench.Error", message: "no stream")
        }
        call.reply()
        let stream = SocketContinuationStream(taking: descriptor)
        streams.append(stream)
        let size = size
        Task { @MainActor in
            defer {
                stream.close()
                streams.removeAll { $0 === stream }
            }
            _ = try await stream.readToEnd(limit: 1024)
            let chunk = [UInt8](repeating: 0x5a, count: 256 << 10)
            var sent = 0
            while sent < size {
                let length = min(size - sent, chunk.count)
                try await stream.write(length == chunk.count ? chunk : Array(chunk.prefix(length)))
                sent += length
            }
        }
    }
}

/// Plays the continuing app's part for one continuation: opens a stream, asks, reads
/// everything. Returns the seconds to the first byte and to the last.
@MainActor
func readStream(token: String, on bus: BusConnection, expecting size: Int) async throws -> (first: Double, all: Double) {
    let start = Date()
    let reply = try await daemonCall(bus, "OpenContinuationStream", [.string(token)])
    guard case .fileDescriptor(let handle)? = reply.first, let descriptor = handle.take() else {
        throw BenchmarkFailure("OpenContinuationStream gave no stream")
    }
    let stream = SocketContinuationStream(taking: descriptor)
    defer { stream.close() }
    try await stream.write(Array("send".utf8))
    stream.closeWrite()
    var received = 0
    var first = 0.0
    while true {
        let chunk = try await stream.read(maximumCount: 256 << 10)
        if chunk.isEmpty { break }
        if received == 0 { first = Date().timeIntervalSince(start) }
        received += chunk.count
    }
    guard received == size else { throw BenchmarkFailure("the stream carried \(received) bytes, not \(size)") }
    return (first, Date().timeIntervalSince(start))
}

/// The floor: `size` bytes over a pinned TLS link on loopback, through the same GIO TLS
/// stack, in 256 KiB frames of a kind the receiver skips unread (so it only counts them),
/// the sender keeping its link's queue full (2 MiB) as the socket takes it.
@MainActor
func measureBareTransfer(size: Int) async throws -> Double {
    let server = try PeerTLS(identity: try DeviceIdentity.generate())
    let client = try PeerTLS(identity: try DeviceIdentity.generate())
    let listener = try PeerListener(host: "127.0.0.1", port: 0)
    let frameBody = 256 << 10
    let frames = (size + frameBody - 1) / frameBody
    var received = 0
    var done: CheckedContinuation<Void, any Error>?
    var receiving: PeerLink?
    listener.onConnection = { connection in
        Task { @MainActor in
            guard let link = try? await server.accept(connection) else { return }
            link.isTrusted = true
            receiving = link
            link.onClose = { reason in done?.resume(throwing: BenchmarkFailure("the floor's link closed: \(reason)")) }
            link.onMessage = { _ in
                received += 1
                if received == frames { done?.resume() }
            }
            link.start()
        }
    }
    let link = try await client.connect(to: listener.address)
    link.isTrusted = true
    link.start()
    let body = [UInt8](repeating: 0x5a, count: frameBody)
    let frame = PeerFrame.encode(kind: 250, body: body)
    let start = Date()
    var sent = 0
    func refill() {
        while sent < frames, link.queuedByteCount + frame.count <= 2 << 20 {
            link.send(frame: frame)
            sent += 1
        }
    }
    link.onWritten = refill
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        done = continuation
        refill()
    }
    let seconds = Date().timeIntervalSince(start)
    link.close("done")
    receiving?.close("done")
    withExtendedLifetime(listener) {}
    return seconds
}
