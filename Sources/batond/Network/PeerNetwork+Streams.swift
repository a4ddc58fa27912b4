import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// Continuation streams between this device and a paired one, multiplexed on their pinned
/// link rather than on a second connection: the link already exists whichever side could
/// dial, is authenticated end to end, and each stream's credit (``StreamRelay/window``)
/// keeps it from crowding out the link's other messages.
extension PeerNetwork {
    /// The most streams open with one device at once.
    static let maximumStreamsPerDevice = 4
    /// Seconds to wait for the device to say its app took the stream.
    static let streamOpenTimeout = 15.0

    /// Opens a stream to the app that `deviceID`'s offer `activityID` came from, relaying
    /// `end` (the app here holds the other end of its socket pair).
    ///
    /// - Throws: ``ServiceError/activity(_:)``: 4609 when the device is not linked, cannot
    ///   stream, or its app did not take the stream; 4610 when it does not answer in time.
    func openStream(_ end: BusFileDescriptor, activityID: String, on deviceID: String) async throws {
        guard isPaired(deviceID), let device = devices[deviceID], device.isLinked else {
            throw ServiceError.activity(.connectionUnavailable("\(deviceName(deviceID)) is not connected"))
        }
        guard supports(PeerCapability.continuationStreams, deviceID) else {
            throw ServiceError.activity(.connectionUnavailable(
                "\(deviceName(deviceID)) runs a batond without continuation streams: update it"))
        }
        guard device.streams.count + device.streamOpens.count < Self.maximumStreamsPerDevice else {
            throw ServiceError.activity(.connectionUnavailable(
                "\(Self.maximumStreamsPerDevice) streams with \(deviceName(deviceID)) are open already"))
        }
        let id = nextStreamID(to: deviceID)
        let answer = await TimedWait.value(timeout: Self.streamOpenTimeout) { (finish: @escaping @MainActor (String?) -> Void) in
            // The relay starts as `streamOpened` is read, before the data that may follow it.
            device.streamOpens[id] = { [weak self] reason in
                guard reason == nil, let self else { return finish(reason) }
                do {
                    try startRelay(id, end, with: device)
                    finish(nil)
                } catch {
                    finish("\(error)")
                }
            }
            send(.streamOpen(stream: id, activityID: activityID), to: deviceID)
        }
        device.streamOpens[id] = nil
        switch answer {
        case .none:
            send(.streamClose(stream: id, reason: "no answer in time"), to: deviceID)
            throw ServiceError.activity(.remoteApplicationTimedOut(
                "\(deviceName(deviceID)) did not open the stream within \(Int(Self.streamOpenTimeout)) s"))
        case .some(.some(let reason)):
            throw ServiceError.activity(.connectionUnavailable("\(deviceName(deviceID)) did not open the stream: \(reason)"))
        case .some(.none):
            logger.info("continuation stream \(id) opened to \(deviceName(deviceID))")
        }
    }

    /// A stream number of this device's: odd from the device with the lower id, even from
    /// the other, so the two never pick the same.
    private func nextStreamID(to deviceID: String) -> UInt32 {
        let parity: UInt32 = identity.deviceID < deviceID ? 1 : 0
        nextRequest &+= 1
        return (nextRequest << 1) | parity
    }

    private func startRelay(_ id: UInt32, _ end: BusFileDescriptor, with device: PeerDevice) throws {
        let deviceID = device.id
        let relay = try StreamRelay(id: id, local: end) { [weak self] message in
            self?.send(message, to: deviceID) ?? false
        }
        relay.onEnd = { [weak self, weak device] relay, reason in
            guard let self, let device else { return }
            device.streams[relay.id] = nil
            if let reason { log(.info, from: deviceID, "continuation stream \(relay.id) with \(deviceName(deviceID)) ended: \(reason)") }
            discardIfIdle(deviceID)
        }
        device.streams[id] = relay
        relay.start()
    }

    /// Routes a stream message from a paired device.
    func received(streamMessage message: PeerMessage, from device: PeerDevice) {
        switch message {
        case .streamOpen(let id, let activityID):
            answerStreamOpen(id, activityID: activityID, from: device)
        case .streamOpened(let id):
            device.streamOpens.removeValue(forKey: id)?(nil)
        case .streamData(let id, let bytes):
            guard let relay = device.streams[id] else { return refuseUnknownStream(id, of: device) }
            relay.received(bytes)
        case .streamCredit(let id, let count):
            device.streams[id]?.granted(count)
        case .streamEnd(let id):
            device.streams[id]?.deviceEnd()
        case .streamClose(let id, let reason):
            if let finish = device.streamOpens.removeValue(forKey: id) {
                finish(reason.isEmpty ? "closed" : reason)
            }
            device.streams[id]?.end(reason.isEmpty ? nil : "\(deviceName(device.id)): \(reason)", tellDevice: false)
        default:
            break
        }
    }

    /// Data for a stream that is not open (it ended here first): the device hears so once
    /// more, so it stops.
    private func refuseUnknownStream(_ id: UInt32, of device: PeerDevice) {
        send(.streamClose(stream: id, reason: "no such stream"), to: device.id)
    }

    /// A paired device's app, continuing `activityID`, opens a stream: only for an activity
    /// that device fetched, with a number of its own parity, within the per-device limit.
    private func answerStreamOpen(_ id: UInt32, activityID: String, from device: PeerDevice) {
        let deviceID = device.id
        let theirParity: UInt32 = deviceID < identity.deviceID ? 1 : 0
        guard id & 1 == theirParity, device.streams[id] == nil, !device.streamsBeingOpened.contains(id) else {
            send(.streamClose(stream: id, reason: "stream number \(id) is not the sender's to choose"), to: deviceID)
            return
        }
        // A document's stream (its batond serves the file) is for an activity fetched too.
        guard device.fetched.contains(PeerDocument.activityID(fromStreamActivityID: activityID) ?? activityID) else {
            send(.streamClose(stream: id, reason: "it is not continuing that activity"), to: deviceID)
            return
        }
        guard device.streams.count + device.streamsBeingOpened.count < Self.maximumStreamsPerDevice else {
            send(.streamClose(stream: id, reason: "too many streams open"), to: deviceID)
            return
        }
        guard let link = device.link else { return }
        device.streamsBeingOpened.insert(id)
        Task { @MainActor in
            let result = await delegate?.streamRequested(for: activityID, by: deviceID)
                ?? .failure(.connectionUnavailable("batond is stopping"))
            device.streamsBeingOpened.remove(id)
            guard link.isOpen, device.link === link, isPaired(deviceID) else {
                if case .success(let end) = result { end.close() }
                return
            }
            switch result {
            case .success(let end):
                do {
                    try startRelay(id, end, with: device)
                    send(.streamOpened(stream: id), to: deviceID)
                    log(.info, from: deviceID, "continuation stream \(id) opened by \(deviceName(deviceID))")
                } catch {
                    send(.streamClose(stream: id, reason: "\(error)"), to: deviceID)
                }
            case .failure(let error):
                send(.streamClose(stream: id, reason: error.description), to: deviceID)
            }
        }
    }
}
