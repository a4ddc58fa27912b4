import Baton
import BatonBus
import BatonPeer

/// Fetching a paired device's activity to continue it: `fetch` asks for an offer's payload,
/// `payload` or `failure` answers, and `continued` tells the origin its offer was continued,
/// which a device may say only of an activity it fetched (the last ``rememberedFetches``).
@MainActor
final class FetchFeature: PeerFeature {
    /// How many activities a paired device may report continued: those it fetched last.
    static let rememberedFetches = 16
    /// Seconds a paired device has to answer a ping when it is asked for a payload a person
    /// waits on: past them its link closes, its offers go and the fetch fails, where the
    /// system's keepalive would notice a device gone only after twice `--keepalive`, and a
    /// frozen batond on a machine still up not at all.
    static let answerTimeout = 3.0

    unowned let network: PeerNetwork
    /// Fetches waiting for each device's answer, by device id, then request number.
    private var waiting: [String: [UInt32: (Result<FetchedPayload, UserActivityError>) -> Void]] = [:]
    /// The activities each device fetched last, newest last, by device id: only these may it
    /// report as continued.
    private var fetched: [String: [String]] = [:]

    init(network: PeerNetwork) {
        self.network = network
    }

    let messageKinds: Set<PeerMessage.Kind> = [.fetch, .payload, .failure, .continued]

    func received(_ message: PeerMessage, from device: PeerDevice) {
        switch message {
        case .fetch(let request, let activityID):
            guard let link = device.link else { return }
            answer(request, of: activityID, from: device, over: link)
        case .payload(let request, let bytes, let document, let withheld):
            waiting[device.id]?.removeValue(forKey: request)?(.success(FetchedPayload(bytes: bytes, document: document,
                                                                                      withheld: withheld)))
        case .failure(let request, let error):
            waiting[device.id]?.removeValue(forKey: request)?(.failure(error))
        case .continued(let activityID):
            guard takeFetch(of: activityID, by: device.id) else {
                return network.log(.notice, from: device.id,
                                   "\(network.deviceName(device.id)) reported an activity continued that it never fetched; ignored")
            }
            network.delegate?.peer(device, continued: activityID)
        default:
            break
        }
    }

    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange) {
        switch change {
        case .unlinked(let reason):
            failWaiting(device.id, reason)
        case .unpaired(let reason):
            fetched[device.id] = nil
            failWaiting(device.id, reason)
        case .linked, .paired, .renamed:
            break
        }
    }

    func holdsState(for deviceID: String) -> Bool { !(waiting[deviceID]?.isEmpty ?? true) }

    /// Whether `deviceID` fetched `activityID` lately (and has not reported it continued).
    func hasFetched(_ activityID: String, by deviceID: String) -> Bool {
        fetched[deviceID]?.contains(activityID) ?? false
    }

    /// The payload of `activityID` on `deviceID`, which asks its app to save it now, with the
    /// document it names as `deviceID` describes it.
    ///
    /// - Throws: ``ServiceError/activity(_:)``: `connectionUnavailable` when the device is
    ///   not linked, its link closes or it does not answer a ping within ``answerTimeout``,
    ///   `remoteApplicationTimedOut` after ``PeerNetwork/fetchTimeout``, `cancelled` when the
    ///   task is cancelled, or the origin's own error.
    func fetch(_ activityID: String, from deviceID: String) async throws -> FetchedPayload {
        let request = network.nextRequest
        network.nextRequest &+= 1
        guard network.isPaired(deviceID), network.isLinked(deviceID) else {
            throw ServiceError.activity(.connectionUnavailable("\(network.deviceName(deviceID)) is not connected"))
        }
        let timeout = network.fetchTimeout
        let result = await withTaskCancellationHandler {
            await TimedWait.value(timeout: timeout) { (finish: @escaping @MainActor (Result<FetchedPayload, UserActivityError>) -> Void) in
                guard !Task.isCancelled else { return finish(.failure(.cancelled)) }
                waiting[deviceID, default: [:]][request] = finish
                network.send(.fetch(request: request, activityID: activityID), to: deviceID)
                network.devices[deviceID]?.link?.probe(within: Self.answerTimeout)
            }
        } onCancel: {
            Task { @MainActor in self.waiting[deviceID]?.removeValue(forKey: request)?(.failure(.cancelled)) }
        }
        waiting[deviceID]?[request] = nil
        if waiting[deviceID]?.isEmpty == true { waiting[deviceID] = nil }
        network.discardIfIdle(deviceID)
        guard let result else {
            throw ServiceError.activity(.remoteApplicationTimedOut(
                "\(network.deviceName(deviceID)) did not send the activity within \(Int(timeout)) s"))
        }
        return try result.mapError { ServiceError.activity($0) }.get()
    }

    /// Answers a paired device's fetch with the payload the delegate gives, while the same
    /// link is open and the device still paired.
    private func answer(_ request: UInt32, of activityID: String, from device: PeerDevice, over link: PeerLink) {
        network.log(.debug, from: device.id, "\(network.deviceName(device.id)) asks for an activity's payload")
        Task { @MainActor in
            let result = await network.delegate?.payloadRequested(for: activityID, by: device.id)
                ?? .failure(.connectionUnavailable("batond is stopping"))
            guard link.isOpen, device.link === link, network.isPaired(device.id) else { return }
            switch result {
            case .success(let payload):
                rememberFetch(of: activityID, by: device.id)
                link.send(.payload(request: request, bytes: payload.bytes, document: payload.document,
                                   withheld: payload.withheld))
            case .failure(let error):
                link.send(.failure(request: request, error))
            }
        }
    }

    /// Remembers that `deviceID` fetched `activityID`, keeping the last ``rememberedFetches``.
    private func rememberFetch(of activityID: String, by deviceID: String) {
        let kept = (fetched[deviceID] ?? []).filter { $0 != activityID } + [activityID]
        fetched[deviceID] = Array(kept.suffix(Self.rememberedFetches))
    }

    /// Takes back a fetch `deviceID` reports continued: `false` when it never fetched that activity.
    private func takeFetch(of activityID: String, by deviceID: String) -> Bool {
        guard hasFetched(activityID, by: deviceID) else { return false }
        fetched[deviceID]?.removeAll { $0 == activityID }
        return true
    }

    private func failWaiting(_ deviceID: String, _ reason: String) {
        let calls = waiting.removeValue(forKey: deviceID) ?? [:]
        for finish in calls.values { finish(.failure(.connectionUnavailable(reason))) }
    }
}
