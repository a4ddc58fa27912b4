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
extension PeerNetwork {
    /// Seconds an answer is kept for the same link, so that a doctor run after another
    /// does not dial again.
    static let reachBackLifetime = 60.0
    /// Seconds to wait for the peer's answer; its dial gives up after its handshake timeout.
    static let reachBackTimeout = 12.0

    /// Whether `deviceID`, paired and linked, can dial this device.
    func reachBack(_ deviceID: String) async -> ReachBack {
        guard isPaired(deviceID), let device = devices[deviceID], let link = device.link, link.isOpen else {
            return .unknown("not linked")
        }
        if !link.isOutgoing { return .reached("it dialed this device for the current link") }
        if let last = device.lastReachBack, last.link == ObjectIdentifier(link),
           Date().timeIntervalSince(last.at) < Self.reachBackLifetime {
            return last.answer
        }
        guard supports(PeerCapability.reachBack, deviceID) else {
            return .unknown("its batond is too old to be asked whether it can dial this device")
        }
        let request = nextRequest
        nextRequest &+= 1
        let answer = await TimedWait.value(timeout: Self.reachBackTimeout) { finish in
            device.reachChecks[request] = finish
            send(.reachBack(request: request), to: deviceID, needing: PeerCapability.reachBack)
        } ?? .unknown("it did not answer within \(Int(Self.reachBackTimeout)) s")
        device.reachChecks[request] = nil
        // An answer is kept for the link it was asked over; "unknown" is asked again.
        if device.link === link, answer.isKnown {
            device.lastReachBack = (ObjectIdentifier(link), Date(), answer)
        }
        return answer
    }

    /// Reads a peer's answer to this device's reach-back check.
    func reachBackAnswered(_ request: UInt32, problem: String, by device: PeerDevice) {
        device.reachChecks.removeValue(forKey: request)?(problem.isEmpty
            ? .reached("it dialed this device back when asked") : .unreachable(problem))
    }

    /// Dials `device`, which asked for it, at the address it is known by, and answers over
    /// `link` whether the handshake reached it. One such dial per device at a time.
    func answerReachBack(_ request: UInt32, from device: PeerDevice, over link: PeerLink) {
        guard !device.isDialingBack else {
            link.send(.reachBackResult(request: request, problem: "a check it asked for is already under way"))
            return
        }
        guard let address = device.address else {
            link.send(.reachBackResult(request: request, problem: "it announced no port to dial"))
            return
        }
        device.isDialingBack = true
        Task { @MainActor in
            defer {
                device.isDialingBack = false
                discardIfIdle(device.id)
            }
            let problem: String
            do {
                let probe = try await tls.connect(to: address)
                probe.close("reach-back check done")
                if probe.peerDeviceID != device.id {
                    problem = "\(address) is another device (\(Self.shortID(probe.peerDeviceID))), not this one"
                } else if let pinned = paired.devices[device.id], [UInt8](pinned.certificate) != probe.peerCertificateDER {
                    problem = "\(address) showed a certificate other than the pinned one"
                } else {
                    problem = ""
                }
            } catch {
                problem = "\(name) cannot dial \(address): \(error)"
            }
            log(.info, from: device.id, "\(deviceName(device.id)) asked to be dialed back at \(address): \(problem.isEmpty ? "reached" : problem)")
            guard link.isOpen, device.link === link else { return }
            link.send(.reachBackResult(request: request, problem: problem))
        }
    }
}
