import BatonPeer
import Foundation

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
    var cold: [Double] = []
    for _ in 0..<samples {
        let start = Date()
        let link = try await client.connect(to: listener.address)
        link.isTrusted = true
        link.start()
        try await floorRoundTrip(link)
        cold.append(Date().timeIntervalSince(start))
        link.close("done")
    }
    let link = try await client.connect(to: listener.address)
    link.isTrusted = true
    link.start()
    var warm: [Double] = []
    for _ in 0..<samples {
        let start = Date()
        try await floorRoundTrip(link)
        warm.append(Date().timeIntervalSince(start))
    }
    link.close("done")
    withExtendedLifetime(listener) {}
    return (cold, warm)
}

/// The floor's round trip over `link`: a fetch out, the other end's payload back.
@MainActor
func floorRoundTrip(_ link: PeerLink) async throws {
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
