import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// The notifications of offers, in one place: shown, replaced and withdrawn as offers and
/// settings change, what each shows (``NotifiedOffer``), what this device handed over
/// (``HandedOver``), and their actions (Continue, "Send to ‹phone›"). The daemon tells it what
/// happened; ``Notifier`` is the `org.freedesktop.Notifications` client beneath.
///
/// There is one notification per paired device, showing that device's most recent offer and
/// replaced when it changes; one per offer added on this device (`AddOffer`, a phone's link);
/// one at a time showing a Continue from a notification under way; and one at a time saying
/// that such a Continue failed.
@MainActor
final class OfferNotifications {
    private let notifier: Notifier
    private let offers: OfferList
    private let broker: ContinuationBroker
    private let phones: PhoneDevices
    private let network: PeerNetwork
    private let settings: SettingsStore
    /// The offer each notification shows, by notification key (``key(of:)``).
    private var notified: [String: NotifiedOffer] = [:]
    /// What this device last handed to each paired device, by device id.
    private var handedTo: [String: HandedOver] = [:]
    /// Each paired device's most recent offer listed, by device id.
    private var latestOffers: [String: String] = [:]
    /// The progress of a continuation started from a notification.
    private let continuing: ContinuingNotification
    /// Called when the person picks Continue, with the offer's id and the activation token
    /// the click came with.
    var onContinue: (_ offerID: String, _ activationToken: String?) -> Void = { _, _ in }
    /// Called when the person picks "Send to ‹phone›", with the offer's id and the phone's.
    var onSendToPhone: (_ offerID: String, _ phoneID: String) -> Void = { _, _ in }

    init(notifier: Notifier, offers: OfferList, broker: ContinuationBroker, phones: PhoneDevices, network: PeerNetwork,
         settings: SettingsStore) {
        self.notifier = notifier
        self.offers = offers
        self.broker = broker
        self.phones = phones
        self.network = network
        self.settings = settings
        continuing = ContinuingNotification(notifier: notifier)
    }

    static func offerKey(_ id: String) -> String { "offer:\(id)" }
    static func deviceKey(_ deviceID: String) -> String { "device:\(deviceID)" }

    /// The key of the notification that shows `offer`: one per paired device, which shows
    /// that device's offer and is replaced when it changes; one per offer added on this
    /// device (`AddOffer`).
    static func key(of offer: Offer) -> String {
        offer.peerDeviceID.map(deviceKey) ?? offerKey(offer.id)
    }

    /// The key of the notification that says a continuation from a notification failed: one
    /// at a time, the latest in place of the one before.
    static let failureKey = "failed"

    /// The start of a notification action that sends the offer's page to a phone: then its id.
    static let sendActionPrefix = "send:"

    /// Shows an offer's notification, in place of the one its device showed before: "Continue",
    /// or "Open in browser" where no app here continues it but it has a web page, with the
    /// icon of the app that continues it. Calm, as Handoff is:
    /// - a device's notification is shown when it starts offering something of another kind
    ///   (another app or activity type) than the one its notification shows; a change within
    ///   the same kind (the next message read) shows nothing new: the notification, which would
    ///   no longer say what Continue opens, goes (the offer stays listed);
    /// - nothing is shown for what this device just handed to that device (its own offer,
    ///   continued there, coming back), nor for a device's offer no app here can open that has
    ///   no web page, nor when ``HandoffPolicy/notifies(_:)`` says no;
    /// - its body names the device alone, with its short id only when another device here
    ///   has the same name.
    func show(_ offer: Offer) {
        let key = Self.key(of: offer)
        let type = offer.summary.activityType
        let claimant = broker.claimantIcon(for: type, teamID: offer.teamID, webpageURL: offer.summary.webpageURL)
        let inApp = claimant != nil || broker.hasClaimant(for: type, teamID: offer.teamID, webpageURL: offer.summary.webpageURL)
        // Only an app verified for the type receives another device's activity; one added here
        // (`AddOffer`) may go to any claimant, as this user's own.
        let opensHere = inApp || offer.summary.webpageURL != nil || offer.peerDeviceID == nil
        guard settings.policy.notifies(offer), opensHere else {
            if notified.removeValue(forKey: key)?.isShown == true { notifier.withdraw(key: key) }
            return
        }
        let from = "From " + (offer.peerDeviceID.map(notifiedName) ?? offer.device)
        let kind = NotifiedOffer.Kind(appID: offer.appID, activityType: type, from: from)
        if let shown = notified[key], shown.kind == kind {
            if shown.isShown, shown.title != offer.summary.title {
                notifier.withdraw(key: key)
                notified[key]?.isShown = false
            }
            notified[key]?.id = offer.id
            notified[key]?.title = offer.summary.title
            return
        }
        if let deviceID = offer.peerDeviceID, let handed = handedTo[deviceID], handed.matches(offer.summary) {
            // What this device just handed over, offered back: listed, never notified.
            if notified[key]?.isShown == true { notifier.withdraw(key: key) }
            notified[key] = NotifiedOffer(id: offer.id, title: offer.summary.title, kind: kind, isShown: false)
            return
        }
        notified[key] = NotifiedOffer(id: offer.id, title: offer.summary.title, kind: kind, isShown: true)
        let label = !inApp && offer.summary.webpageURL != nil ? "Open in browser" : "Continue"
        // A page can go to a phone instead: the first reachable one, as a second button.
        let phone = offer.summary.webpageURL == nil ? nil : phones.all.first(where: \.isReachable)
        let title = offer.summary.title ?? (offer.summary.webpageURL != nil ? "a web page" : "an activity")
        notifier.show(key: key,
                      title: "\(label) “\(title)”",
                      detail: from,
                      action: (id: "continue", label: label), icon: claimant,
                      others: phone.map { [(id: Self.sendActionPrefix + $0.id, label: "Send to \($0.name)")] } ?? [])
    }

    /// The paired device `deviceID` now lists `offerID` as its most recent offer (`nil`: none):
    /// its notification shows it, or goes.
    func showLatest(of deviceID: String, _ offerID: String?) {
        latestOffers[deviceID] = offerID
        refresh(device: deviceID)
    }

    /// Shows the notification of the device's most recent offer, or withdraws it, as the
    /// settings and the offer now say.
    func refresh(device deviceID: String) {
        if let id = latestOffers[deviceID], let offer = offers.offers[id] {
            show(offer)
        } else if notified.removeValue(forKey: Self.deviceKey(deviceID))?.isShown == true {
            notifier.withdraw(key: Self.deviceKey(deviceID))
        }
    }

    /// The settings changed: every device's notification, and every offer's added here, shows
    /// or goes as they now say.
    func refreshAll() {
        for deviceID in Array(latestOffers.keys) { refresh(device: deviceID) }
        for offer in offers.offers.values where offer.peerDeviceID == nil { show(offer) }
    }

    /// `clause` as a sentence, with a full stop at its end (its first word, a device's
    /// name, kept as the person wrote it).
    private static func sentence(_ clause: String) -> String {
        clause.hasSuffix(".") ? clause : clause + "."
    }

    /// This device handed `summary` to the paired device `deviceID`: the same coming back from
    /// it is listed without a notification for a while (``HandedOver/lifetime``).
    func handedOver(_ summary: ActivitySummary, to deviceID: String) {
        handedTo[deviceID] = HandedOver(activityType: summary.activityType, title: summary.title, at: MonotonicClock.now)
    }

    /// Says, in a notification, that continuing `offer` from its notification failed, in plain
    /// words: the person clicked there, and the app that was to continue it may be behind.
    func showFailure(of offer: Offer, _ error: any Error) {
        let title = Self.title(of: offer)
        let device = Self.device(of: offer, named: notifiedName)
        let reason: String
        if let withheld = error as? WithheldDocumentFailure {
            // Already words for the person: what the other device did not send, and why.
            reason = Self.sentence(withheld.description)
        } else {
            switch ServiceError.userActivityError(from: error) {
            case .connectionUnavailable, .remoteApplicationTimedOut:
                reason = "\(device) didn’t respond. Make sure it is awake and on the same network."
            case .cancelled:
                return
            default:
                reason = "It could not be continued on this computer."
            }
        }
        notifier.show(key: Self.failureKey, title: "Couldn’t Continue “\(title)”", detail: reason, action: nil)
    }

    /// Runs `continuation`, the Continue of `offer`'s notification, showing its progress with
    /// Cancel while it takes time (``ContinuingNotification``).
    func showProgress(of offer: Offer?, _ continuation: @escaping @MainActor () async -> Void) {
        continuing.run(title: offer.map(Self.title) ?? "the activity",
                       from: offer.map { Self.device(of: $0, named: notifiedName) } ?? "", continuation)
    }

    /// What a notification about continuing `offer` calls it: its title, or what it is.
    private static func title(of offer: Offer) -> String {
        offer.summary.title ?? (offer.summary.webpageURL != nil ? "the web page" : "the activity")
    }

    /// The device `offer` comes from, as its notifications name it.
    private static func device(of offer: Offer, named name: (String) -> String) -> String {
        offer.peerDeviceID.map(name) ?? offer.device
    }

    /// A device's name as its notification shows it, quoted: alone, or with its short id when
    /// another device here goes by the same name.
    private func notifiedName(_ deviceID: String) -> String {
        let name = network.deviceName(deviceID)
        let shared = network.knownDevices.contains { $0 != deviceID && network.deviceName($0) == name }
        return shared ? network.displayName(deviceID) : "“\(name)”"
    }

    /// The notification that showed offer `offerID` was used: it goes, and the same kind from
    /// its device is not shown again until the device offers another.
    func used(_ offerID: String) {
        guard let offer = offers.offers[offerID] else { return }
        let key = Self.key(of: offer)
        guard notified[key]?.isShown == true else { return }
        notified[key]?.isShown = false
        notifier.withdraw(key: key)
    }

    /// Withdraws the notification of `offer`, if it shows that offer.
    func withdraw(_ offer: Offer) {
        let key = Self.key(of: offer)
        guard let shown = notified[key], shown.id == offer.id else { return }
        notified[key] = nil
        if shown.isShown { notifier.withdraw(key: key) }
    }

    /// The person picked `action` of the notification under `key`: Continue, or "Send to
    /// ‹phone›".
    func actionPicked(_ key: String, _ action: String, activationToken: String?) {
        if key == ContinuingNotification.key {
            if action == ContinuingNotification.cancelAction { continuing.cancel() }
            return
        }
        guard let offerID = notified[key]?.id else { return }
        if action.hasPrefix(Self.sendActionPrefix) {
            onSendToPhone(offerID, String(action.dropFirst(Self.sendActionPrefix.count)))
            return
        }
        guard action == "continue" else { return }
        onContinue(offerID, activationToken)
    }

    /// Whether the notification under `key` still stands: it shows an offer still listed, or
    /// it is the one that says a continuation failed, or the progress of one still running.
    func isCurrent(_ key: String) -> Bool {
        if let shown = notified[key] { return shown.isShown && offers.offers[shown.id] != nil }
        if key == ContinuingNotification.key { return continuing.isRunning }
        return key == Self.failureKey
    }
}

/// The offer a notification key stands for: the offer its Continue continues, the kind it
/// shows (a new kind replaces the notification; the same kind does not), and whether it is on
/// screen.
struct NotifiedOffer: Equatable {
    /// What a notification shows of its device's offers: the app, the activity type and the
    /// line that names the device.
    struct Kind: Equatable {
        let appID: String?
        let activityType: String
        let from: String
    }

    var id: String
    /// The title of the offer it stands for.
    var title: String?
    let kind: Kind
    var isShown: Bool
}

/// What this device just handed to a paired device: when the same comes back from it as an
/// offer (its app publishing what it continued), it is listed without a notification.
struct HandedOver {
    let activityType: String
    let title: String?
    let at: Double

    /// How long an offer coming back counts as what was handed over.
    static let lifetime = 120.0

    func matches(_ summary: ActivitySummary, now: Double = MonotonicClock.now) -> Bool {
        now - at <= Self.lifetime && summary.activityType == activityType && summary.title == title
    }
}
