import Baton
import BatonGLib
import BatonPeer
import Foundation

/// One continuation stream between an app here and a paired device, relayed over the link:
/// bytes the app writes go out as `streamData` while the device has granted credit; bytes
/// that come in are written to the app, and credit is granted back as the app takes them.
///
/// So at most ``window`` bytes of a stream are ever on their way or queued, whatever the
/// apps do: a stream never starves the link's pings, and an app that stops reading
/// stops its writer after one window. The relay ends when both sides have ended their
/// writes and everything is delivered, or at the first failure, which the device hears of.
@MainActor
final class StreamRelay {
    let id: UInt32
    /// Sends a message on the device's link; `false` when the link is gone.
    private let send: (PeerMessage) -> Bool
    private let local: SocketContinuationStream
    /// Bytes this side may still send.
    private var credit = StreamRelay.window
    private var creditWaiter: CheckedContinuation<Bool, Never>?
    /// Bytes received and not yet credited back.
    private var unacknowledged = 0
    private var queue: [[UInt8]] = []
    private var isWriting = false
    private var appEnded = false
    private var deviceEnded = false
    private(set) var isClosed = false
    /// Called once, when the relay ends.
    var onEnd: (StreamRelay, String?) -> Void = { _, _ in }

    /// The most bytes of one stream on their way in each direction. All the streams a link
    /// may carry (``StreamFeature/maximumStreamsPerDevice``) fit in half the link's queue
    /// (``PeerLink/maximumQueuedBytes``), so streams never overflow it.
    static let window = 2 << 20

    init(id: UInt32, local: BusFileDescriptor, send: @escaping (PeerMessage) -> Bool) throws {
        guard let descriptor = local.take() else {
            throw UserActivityError.connectionUnavailable("the stream's socket is closed")
        }
        self.id = id
        self.send = send
        self.local = SocketContinuationStream(taking: descriptor)
        // The apps time their own reads: the relay waits for its app as long as the app waits.
        self.local.readTimeout = 24 * 3600
    }

    /// Starts relaying what the app writes.
    func start() {
        Task { @MainActor in await relayOut() }
    }

    private func relayOut() async {
        while !isClosed {
            if credit <= 0 {
                let granted = await withCheckedContinuation { creditWaiter = $0 }
                guard granted else { return }
                continue
            }
            do {
                let bytes = try await local.read(maximumCount: min(PeerMessage.maximumStreamChunk, credit))
                guard !isClosed else { return }
                if bytes.isEmpty {
                    appEnded = true
                    guard send(.streamEnd(stream: id)) else { return end("the link closed", tellDevice: false) }
                    return endIfDone()
                }
                credit -= bytes.count
                guard send(.streamData(stream: id, bytes: bytes)) else { return end("the link closed", tellDevice: false) }
            } catch {
                return end("the app's stream failed: \(error)", tellDevice: true)
            }
        }
    }

    /// Bytes from the device, for the app.
    func received(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        guard !deviceEnded else { return end("data after the end of the stream", tellDevice: true) }
        unacknowledged += bytes.count
        guard unacknowledged <= Self.window else { return end("more data than the credit granted", tellDevice: true) }
        queue.append(bytes)
        writeQueued()
    }

    /// Writes the queue to the app: what its socket takes now at once, the rest as it takes
    /// it. Each byte the app takes is credited back to the device.
    private func writeQueued() {
        guard !isWriting, !isClosed else { return }
        do {
            while let chunk = queue.first {
                let written = try local.writeAvailable(chunk)
                guard written > 0 else { break }
                if written == chunk.count { queue.removeFirst() } else { queue[0] = Array(chunk[written...]) }
                guard delivered(written) else { return }
            }
        } catch {
            return end("the app took nothing: \(error)", tellDevice: true)
        }
        guard queue.isEmpty else { return writeQueuedWhenTaken() }
        if deviceEnded {
            local.closeWrite()
            endIfDone()
        }
    }

    /// Writes the queue as the app's socket takes it, then goes on as ``writeQueued()``.
    private func writeQueuedWhenTaken() {
        isWriting = true
        Task { @MainActor in
            while let chunk = queue.first, !isClosed {
                do {
                    try await local.write(chunk)
                } catch {
                    isWriting = false
                    return end("the app took nothing: \(error)", tellDevice: true)
                }
                queue.removeFirst()
                guard delivered(chunk.count) else {
                    isWriting = false
                    return
                }
            }
            isWriting = false
            writeQueued()
        }
    }

    /// `count` bytes reached the app: credits them back to the device. Returns `false` when
    /// the link is gone (and the relay has ended).
    private func delivered(_ count: Int) -> Bool {
        unacknowledged -= count
        guard send(.streamCredit(stream: id, count: UInt32(count))) else {
            end("the link closed", tellDevice: false)
            return false
        }
        return true
    }

    /// The device may send `count` more bytes.
    func granted(_ count: UInt32) {
        // Never more than one window, whatever the device says: more would only fill the
        // link's queue, which closes the link.
        credit = min(credit + Int(count), Self.window)
        guard credit > 0, let waiter = creditWaiter else { return }
        creditWaiter = nil
        waiter.resume(returning: true)
    }

    /// The device's app closed its write half.
    func deviceEnd() {
        guard !isClosed, !deviceEnded else { return }
        deviceEnded = true
        if queue.isEmpty && !isWriting {
            local.closeWrite()
            endIfDone()
        }
    }

    private func endIfDone() {
        if appEnded && deviceEnded && queue.isEmpty && !isWriting { end(nil, tellDevice: false) }
    }

    /// Ends the relay: the app's socket closes (it reads the end, or fails to write), and
    /// with `tellDevice` the device hears why.
    func end(_ reason: String?, tellDevice: Bool) {
        guard !isClosed else { return }
        isClosed = true
        if tellDevice { _ = send(.streamClose(stream: id, reason: reason ?? "")) }
        local.close()
        queue = []
        if let waiter = creditWaiter {
            creditWaiter = nil
            waiter.resume(returning: false)
        }
        onEnd(self, reason)
    }
}
