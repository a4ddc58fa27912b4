import Baton
import BatonPeer
import Foundation

/// One remote device, as this one knows it: its link, what its hello said, the pairing under
/// way, the fetches waiting for it and the activities it fetched. ``PeerNetwork`` keeps one
/// per device it is linked with, is pairing with, has seen lately or is paired with (whose
/// pin is in ``PairedDevices``), and drops it once it is none of these.
@MainActor
final class PeerDevice {
    /// The device id: the hash of its certificate's public key.
    let id: String
    /// The introduced link (its hello received), while it is open or closing.
    var link: PeerLink?
    /// The name its last hello gave.
    var name: String?
    /// Where it listens (`HOST:PORT`), from its last hello.
    var address: String?
    /// The protocol version and capabilities its hello announced on the current link.
    var announced: (version: UInt32, capabilities: Set<String>)?
    /// When its link closed, for a device that is not paired: it stays listed for
    /// ``PeerNetwork/seenDeviceLifetime`` and is dialed again to pair.
    var seenAt: Date?
    /// The pairing under way with it.
    var pairing: PairingSession?
    /// The activities it fetched last, newest last: only these may it report as continued.
    var fetched: [String] = []
    /// Fetches from it waiting for its answer, by request number.
    var fetches: [UInt32: (Result<FetchedPayload, UserActivityError>) -> Void] = [:]
    /// Calls waiting for a link with it (to pair with it while it is not linked), by a token
    /// of each call.
    var linkWaiters: [UUID: @MainActor (Bool) -> Void] = [:]
    /// Reach-back checks waiting for its answer, by request number (``PeerNetwork/reachBack(_:)``).
    var reachChecks: [UInt32: (ReachBack) -> Void] = [:]
    /// The last answer to a reach-back check, with the link it was asked over.
    var lastReachBack: (link: ObjectIdentifier, at: Date, answer: ReachBack)?
    /// Whether this device is dialing it because it asked to be reached back.
    var isDialingBack = false
    /// Continuation streams relayed over its link, by stream number.
    var streams: [UInt32: StreamRelay] = [:]
    /// Streams this device asked it to open, waiting for `streamOpened` or `streamClose`.
    var streamOpens: [UInt32: (String?) -> Void] = [:]
    /// Streams it asked this device to open, while this device's app is being asked.
    var streamsBeingOpened: Set<UInt32> = []

    init(id: String) {
        self.id = id
    }

    /// Whether its link is open.
    var isLinked: Bool { link?.isOpen ?? false }

    /// Whether it announced `capability` in its hello on the current link.
    func supports(_ capability: String) -> Bool {
        announced?.capabilities.contains(capability) ?? false
    }

    /// Whether nothing is left to keep for it but, when it is paired, its pin.
    var isIdle: Bool {
        link == nil && seenAt == nil && pairing == nil && fetches.isEmpty && linkWaiters.isEmpty && reachChecks.isEmpty
            && !isDialingBack && streams.isEmpty && streamOpens.isEmpty && streamsBeingOpened.isEmpty
    }

    /// Remembers that it fetched `activityID`, keeping the last ``PeerNetwork/rememberedFetches``.
    func rememberFetch(of activityID: String) {
        fetched = Array((fetched.filter { $0 != activityID } + [activityID]).suffix(PeerNetwork.rememberedFetches))
    }

    /// Takes back a fetch it reports continued: `false` when it never fetched that activity.
    func takeFetch(of activityID: String) -> Bool {
        guard fetched.contains(activityID) else { return false }
        fetched.removeAll { $0 == activityID }
        return true
    }

    /// Ends every fetch waiting for it with `connectionUnavailable(reason)`, and every
    /// reach-back check as unknown.
    func failFetches(_ reason: String) {
        let waiting = fetches
        fetches = [:]
        for finish in waiting.values { finish(.failure(.connectionUnavailable(reason))) }
        let checks = reachChecks
        reachChecks = [:]
        for finish in checks.values { finish(.unknown(reason)) }
        let opens = streamOpens
        streamOpens = [:]
        for finish in opens.values { finish(reason) }
        for relay in Array(streams.values) { relay.end(reason, tellDevice: false) }
    }

    /// Answers the calls waiting for its link.
    func finishLinkWaiters(linked: Bool) {
        let waiting = linkWaiters
        linkWaiters = [:]
        for waiter in waiting.values { waiter(linked) }
    }
}
