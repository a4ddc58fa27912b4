import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// Continuation streams between this device and a paired one, multiplexed on their pinned
/// link rather than on a second connection: the link already exists whichever side could
/// dial, is authenticated end to end, and each stream's credit (``StreamRelay/window``)
/// keeps it from crowding out the link's other messages.
@MainActor
final class StreamFeature: PeerFeature {
    /// The most streams open with one device at once.
    static let maximumStreamsPerDevice = 4
    /// Seconds to wait for the device to say its app took the stream.
    static let openTimeout = 15.0

    unowned let network: PeerNetwork
    /// Which activities each device fetched: a device opens streams only to those.
    private let fetch: FetchFeature
    /// Streams relayed over each device's link, by device id, then stream number.
    private var relays: [String: [UInt32: StreamRelay]] = [:]
    /// Streams this device asked each device to open, waiting for `streamOpened` or `streamClose`.
    private var opening: [String: [UInt32: (String?) -> Void]] = [:]
    /// Streams each device asked this device to open, while this device's app is being asked.
    private var beingOpened: [String: Set<UInt32>] = [:]

    init(network: PeerNetwork, fetch: FetchFeature) {
        self.network = network
        self.fetch = fetch
    }

    let messageKinds: Set<PeerMessage.Kind> = [.streamOpen, .streamOpened, .streamData, .streamCredit, .streamEnd,
                                               .streamClose]
    var capability: String? { PeerCapability.continuationStreams }

    /// The streams open now, with every device.
    var openCount: Int { relays.values.reduce(0) { $0 + $1.count } }

    func received(_ message: PeerMessage, from device: PeerDevice) {
        let deviceID = device.id
        switch message {
        case .streamOpen(let id, let activityID):
            answerOpen(id, activityID: activityID, from: device)
        case .streamOpened(let id):
            opening[deviceID]?.removeValue(forKey: id)?(nil)
        case .streamData(let id, let bytes):
            guard let relay = relays[deviceID]?[id] else { return refuseUnknownStream(id, of: deviceID) }
            relay.received(bytes)
        case .streamCredit(let id, let count):
            relays[deviceID]?[id]?.granted(count)
        case .streamEnd(let id):
            relays[deviceID]?[id]?.deviceEnd()
        case .streamClose(let id, let reason):
            if let finish = opening[deviceID]?.removeValue(forKey: id) {
                finish(reason.isEmpty ? "closed" : reason)
            }
            relays[deviceID]?[id]?.end(reason.isEmpty ? nil : "\(network.deviceName(deviceID)): \(reason)", tellDevice: false)
        default:
            break
        }
    }

    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange) {
        switch change {
        case .unlinked(let reason), .unpaired(let reason):
            let waiting = opening.removeValue(forKey: device.id) ?? [:]
            for finish in waiting.values { finish(reason) }
            for relay in Array((relays[device.id] ?? [:]).values) { relay.end(reason, tellDevice: false) }
        case .linked, .paired, .renamed:
            break
        }
    }

    func holdsState(for deviceID: String) -> Bool {
        !(relays[deviceID]?.isEmpty ?? true) || !(opening[deviceID]?.isEmpty ?? true)
            || !(beingOpened[deviceID]?.isEmpty ?? true)
    }

    /// Opens a stream to the app that `deviceID`'s offer `activityID` came from, relaying
    /// `end` (the app here holds the other end of its socket pair).
    ///
    /// - Throws: ``ServiceError/activity(_:)``: 4609 when the device is not linked, cannot
    ///   stream, or its app did not take the stream; 4610 when it does not answer in time.
    func open(_ end: BusFileDescriptor, activityID: String, on deviceID: String) async throws {
        let name = network.deviceName(deviceID)
        guard network.isPaired(deviceID), network.isLinked(deviceID) else {
            throw ServiceError.activity(.connectionUnavailable("\(name) is not connected"))
        }
        guard network.supports(PeerCapability.continuationStreams, deviceID) else {
            throw ServiceError.activity(.connectionUnavailable("\(name) runs a batond without continuation streams: update it"))
        }
        guard (relays[deviceID]?.count ?? 0) + (opening[deviceID]?.count ?? 0) < Self.maximumStreamsPerDevice else {
            throw ServiceError.activity(.connectionUnavailable(
                "\(Self.maximumStreamsPerDevice) streams with \(name) are open already"))
        }
        let id = nextStreamID(to: deviceID)
        let answer = await TimedWait.value(timeout: Self.openTimeout) { (finish: @escaping @MainActor (String?) -> Void) in
            // The relay starts as `streamOpened` is read, before the data that may follow it.
            opening[deviceID, default: [:]][id] = { [weak self] reason in
                guard reason == nil, let self else { return finish(reason) }
                do {
                    try startRelay(id, end, with: deviceID)
                    finish(nil)
                } catch {
                    finish("\(error)")
                }
            }
            network.send(.streamOpen(stream: id, activityID: activityID), to: deviceID)
        }
        opening[deviceID]?[id] = nil
        if opening[deviceID]?.isEmpty == true { opening[deviceID] = nil }
        switch answer {
        case .none:
            network.send(.streamClose(stream: id, reason: "no answer in time"), to: deviceID)
            network.discardIfIdle(deviceID)
            throw ServiceError.activity(.remoteApplicationTimedOut(
                "\(network.deviceName(deviceID)) did not open the stream within \(Int(Self.openTimeout)) s"))
        case .some(.some(let reason)):
            network.discardIfIdle(deviceID)
            let said = "\(network.deviceName(deviceID)) did not open the stream: \(reason)"
            // The origin's app answered, refusing it: not a device that could not be reached.
            if reason.contains(ContinuationBroker.noStreamAnswer) { throw ServiceError.activity(.handoffFailed(said)) }
            throw ServiceError.activity(.connectionUnavailable(said))
        case .some(.none):
            network.logger.info("continuation stream \(id) opened to \(network.deviceName(deviceID))")
        }
    }

    /// A stream number of this device's: odd from the device with the lower id, even from
    /// the other, so the two never pick the same.
    private func nextStreamID(to deviceID: String) -> UInt32 {
        let parity: UInt32 = network.identity.deviceID < deviceID ? 1 : 0
        network.nextRequest &+= 1
        return (network.nextRequest << 1) | parity
    }

    private func startRelay(_ id: UInt32, _ end: BusFileDescriptor, with deviceID: String) throws {
        let relay = try StreamRelay(id: id, local: end) { [weak self] message in
            self?.network.send(message, to: deviceID) ?? false
        }
        relay.onEnd = { [weak self] relay, reason in
            guard let self else { return }
            relays[deviceID]?[relay.id] = nil
            if relays[deviceID]?.isEmpty == true { relays[deviceID] = nil }
            if let reason {
                network.log(.info, from: deviceID, "continuation stream \(relay.id) with \(network.deviceName(deviceID)) ended: \(reason)")
            }
            network.discardIfIdle(deviceID)
        }
        relays[deviceID, default: [:]][id] = relay
        relay.start()
    }

    /// Data for a stream that is not open (it ended here first): the device hears so once
    /// more, so it stops.
    private func refuseUnknownStream(_ id: UInt32, of deviceID: String) {
        network.send(.streamClose(stream: id, reason: "no such stream"), to: deviceID)
    }

    /// A paired device's app, continuing `activityID`, opens a stream: only for an activity
    /// that device fetched, with a number of its own parity, within the per-device limit.
    private func answerOpen(_ id: UInt32, activityID: String, from device: PeerDevice) {
        let deviceID = device.id
        let theirParity: UInt32 = deviceID < network.identity.deviceID ? 1 : 0
        guard id & 1 == theirParity, relays[deviceID]?[id] == nil, !(beingOpened[deviceID]?.contains(id) ?? false) else {
            network.send(.streamClose(stream: id, reason: "stream number \(id) is not the sender's to choose"), to: deviceID)
            return
        }
        // A document's stream (its batond serves the file) is for an activity fetched too.
        guard fetch.hasFetched(PeerDocument.activityID(fromStreamActivityID: activityID) ?? activityID, by: deviceID) else {
            network.send(.streamClose(stream: id, reason: "it is not continuing that activity"), to: deviceID)
            return
        }
        guard (relays[deviceID]?.count ?? 0) + (beingOpened[deviceID]?.count ?? 0) < Self.maximumStreamsPerDevice else {
            network.send(.streamClose(stream: id, reason: "too many streams open"), to: deviceID)
            return
        }
        guard let link = device.link else { return }
        beingOpened[deviceID, default: []].insert(id)
        Task { @MainActor in
            let result = await network.delegate?.streamRequested(for: activityID, by: deviceID)
                ?? .failure(.connectionUnavailable("batond is stopping"))
            beingOpened[deviceID]?.remove(id)
            if beingOpened[deviceID]?.isEmpty == true { beingOpened[deviceID] = nil }
            guard link.isOpen, device.link === link, network.isPaired(deviceID) else {
                if case .success(let end) = result { end.close() }
                network.discardIfIdle(deviceID)
                return
            }
            switch result {
            case .success(let end):
                do {
                    try startRelay(id, end, with: deviceID)
                    network.send(.streamOpened(stream: id), to: deviceID)
                    network.log(.info, from: deviceID, "continuation stream \(id) opened by \(network.deviceName(deviceID))")
                } catch {
                    network.send(.streamClose(stream: id, reason: "\(error)"), to: deviceID)
                }
            case .failure(let error):
                network.send(.streamClose(stream: id, reason: error.description), to: deviceID)
            }
        }
    }
}
