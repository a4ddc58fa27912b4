@testable import batond
import Baton
import BatonGLib
import BatonPeer

/// A ``PeerNetworkDelegate`` that answers from what the test sets and records each call.
@MainActor
final class RecordingNetworkDelegate: PeerNetworkDelegate {
    /// What this device offers each paired device.
    var offers: [PeerOffer] = []
    /// The answer to a paired device's fetch, by activity id; unset ones fail as not found.
    var payloads: [String: Result<FetchedPayload, UserActivityError>] = [:]

    /// Each paired device's offers as they arrived: device id, offers.
    private(set) var offered: [(deviceID: String, offers: [PeerOffer])] = []
    /// Each fetch a paired device made of this device: activity id, device id.
    private(set) var payloadRequests: [(activityID: String, deviceID: String)] = []
    /// Each activity a paired device reported continued: device id, activity id.
    private(set) var continued: [(deviceID: String, activityID: String)] = []
    /// The devices whose offers went, in order.
    private(set) var gone: [String] = []
    /// The devices whose person renamed them, in order.
    private(set) var renamed: [String] = []
    private(set) var devicesChangedCount = 0
    /// The devices copies are not shared with; all others share them.
    var clipboardRefused: Set<String> = []

    func offers(for deviceID: String) -> [PeerOffer] { offers }

    func peer(_ device: PeerDevice, offered offers: [PeerOffer]) {
        offered.append((device.id, offers))
    }

    func peerGone(_ deviceID: String) {
        gone.append(deviceID)
    }

    func payloadRequested(for activityID: String, by deviceID: String) async -> Result<FetchedPayload, UserActivityError> {
        payloadRequests.append((activityID, deviceID))
        return payloads[activityID] ?? .failure(.handoffFailed("no activity \(activityID) here"))
    }

    func peer(_ device: PeerDevice, continued activityID: String) {
        continued.append((device.id, activityID))
    }

    func pairingRequested(by device: PeerDevice, code: String) {}

    func pairingEnded(with deviceID: String) {}

    func devicesChanged() {
        devicesChangedCount += 1
    }

    func peerRenamed(_ device: PeerDevice) {
        renamed.append(device.id)
    }

    func streamRequested(for activityID: String, by deviceID: String) async -> Result<BusFileDescriptor, UserActivityError> {
        .failure(.handoffFailed("no streams in this test"))
    }

    func sharesClipboard(with deviceID: String) -> Bool {
        !clipboardRefused.contains(deviceID)
    }
}
