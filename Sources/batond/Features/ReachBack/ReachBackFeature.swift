import BatonPeer
import Foundation

/// Whether a linked device can dial this one: a link this device dialed says nothing of the
/// way back, and when it drops only this side can restore it.
enum ReachBack: Sendable, Equatable {
    /// The device reached this one; how it is known.
    case reached(String)
    /// The device could not dial this one, and why.
    case unreachable(String)
    /// No answer: the device is too old to be asked, the link closed, or it answered late.
    case unknown(String)

    /// Whether the device answered.
    var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }
}

/// Reach-back checks: a device asks a paired, linked peer to dial it now (a TLS handshake
/// with the pinned certificate, then closed before any hello), and the peer says whether it
/// could. `baton doctor` shows the answer.
///
/// The template feature: two message kinds, one capability, and per-device state dropped as
/// links close.
@MainActor
final class ReachBackFeature: PeerFeature {
    /// Seconds an answer is kept for the same link, so that a doctor run after another
    /// does not dial again.
    static let answerLifetime = 60.0
    /// Seconds to wait for the peer's answer; its dial gives up after its handshake timeout.
    static let answerTimeout = 12.0

    unowned let network: PeerNetwork
    /// Checks waiting for each device's answer, by device id, then request number.
    private var checks: [String: [UInt32: (ReachBack) -> Void]] = [:]
    /// Each device's last answer, with the link it was asked over, by device id.
    private var lastAnswers: [String: (link: ObjectIdentifier, at: Date, answer: ReachBack)] = [:]
    /// The devices this one is dialing because they asked to be reached back.
    private var dialingBack: Set<String> = []

    init(network: PeerNetwork) {
        self.network = network
    }

    let messageKinds: Set<PeerMessage.Kind> = [.reachBack, .reachBackResult]
    var capability: String? { PeerCapability.reachBack }

    func received(_ message: PeerMessage, from device: PeerDevice) {
        switch message {
        case .reachBack(let request):
            guard let link = device.link else { return }
            answer(request, from: device, over: link)
        case .reachBackResult(let request, let problem):
            checks[device.id]?.removeValue(forKey: request)?(problem.isEmpty
                ? .reached("it dialed this device back when asked") : .unreachable(problem))
        default:
            break
        }
    }

    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange) {
        switch change {
        case .unlinked(let reason), .unpaired(let reason):
            let waiting = checks.removeValue(forKey: device.id) ?? [:]
            lastAnswers[device.id] = nil
            for finish in waiting.values { finish(.unknown(reason)) }
        case .linked, .paired, .renamed:
            break
        }
    }

    func holdsState(for deviceID: String) -> Bool {
        !(checks[deviceID]?.isEmpty ?? true) || dialingBack.contains(deviceID)
    }

    /// Whether `deviceID`, paired and linked, can dial this device.
    func check(_ deviceID: String) async -> ReachBack {
        guard network.isPaired(deviceID), let link = network.link(deviceID), link.isOpen else {
            return .unknown("not linked")
        }
        if !link.isOutgoing { return .reached("it dialed this device for the current link") }
        if let last = lastAnswers[deviceID], last.link == ObjectIdentifier(link),
           Date().timeIntervalSince(last.at) < Self.answerLifetime {
            return last.answer
        }
        guard network.supports(PeerCapability.reachBack, deviceID) else {
            return .unknown("its batond is too old to be asked whether it can dial this device")
        }
        let request = network.nextRequest
        network.nextRequest &+= 1
        let answer = await TimedWait.value(timeout: Self.answerTimeout) { finish in
            checks[deviceID, default: [:]][request] = finish
            network.send(.reachBack(request: request), to: deviceID, needing: PeerCapability.reachBack)
        } ?? .unknown("it did not answer within \(Int(Self.answerTimeout)) s")
        forgetCheck(request, of: deviceID)
        // An answer is kept for the link it was asked over; "unknown" is asked again.
        if network.link(deviceID) === link, answer.isKnown {
            lastAnswers[deviceID] = (ObjectIdentifier(link), Date(), answer)
        }
        return answer
    }

    private func forgetCheck(_ request: UInt32, of deviceID: String) {
        checks[deviceID]?[request] = nil
        if checks[deviceID]?.isEmpty == true { checks[deviceID] = nil }
        network.discardIfIdle(deviceID)
    }

    /// Dials `device`, which asked for it, at the address it is known by, and answers over
    /// `link` whether the handshake reached it. One such dial per device at a time.
    private func answer(_ request: UInt32, from device: PeerDevice, over link: PeerLink) {
        guard !dialingBack.contains(device.id) else {
            link.send(.reachBackResult(request: request, problem: "a check it asked for is already under way"))
            return
        }
        guard let address = device.address else {
            link.send(.reachBackResult(request: request, problem: "it announced no port to dial"))
            return
        }
        dialingBack.insert(device.id)
        Task { @MainActor in
            defer {
                dialingBack.remove(device.id)
                network.discardIfIdle(device.id)
            }
            let problem: String
            do {
                let probe = try await network.tls.connect(to: address)
                probe.close("reach-back check done")
                if probe.peerDeviceID != device.id {
                    problem = "\(address) is another device (\(PeerNetwork.shortID(probe.peerDeviceID))), not this one"
                } else if let pinned = network.paired.devices[device.id], [UInt8](pinned.certificate) != probe.peerCertificateDER {
                    problem = "\(address) showed a certificate other than the pinned one"
                } else {
                    problem = ""
                }
            } catch {
                problem = "\(network.name) cannot dial \(address): \(error)"
            }
            network.log(.info, from: device.id, "\(network.deviceName(device.id)) asked to be dialed back at \(address): \(problem.isEmpty ? "reached" : problem)")
            guard link.isOpen, device.link === link else { return }
            link.send(.reachBackResult(request: request, problem: problem))
        }
    }
}
