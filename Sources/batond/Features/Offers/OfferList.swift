import Baton
import BatonBus
import BatonGLib
import Foundation

/// An activity offered for continuation that is not a local app's current activity: an
/// offer from another device, or a local test offer (`baton offer`).
struct Offer: Sendable {
    /// Where the payload comes from when the offer is continued.
    enum Origin: Sendable {
        /// batond holds it (`AddOffer`).
        case held([UInt8])
        /// The paired device with this id sends it when asked.
        case peer(deviceID: String)
    }

    let id: String
    let summary: ActivitySummary
    let appID: String?
    let teamID: String?
    /// The name of the device it comes from.
    var device: String
    let origin: Origin

    var peerDeviceID: String? {
        if case .peer(let deviceID) = origin { return deviceID }
        return nil
    }
}

/// The offers batond lists, each until it is withdrawn or expires.
///
/// At most ``maximumOffers`` are listed, and at most ``maximumOffersPerOrigin`` from one
/// origin (a paired device, or `AddOffer` on this one): a paired device keeps its most recent
/// ones, so no device can take every place and crowd the others out.
@MainActor
final class OfferList {
    private(set) var offers: [String: Offer] = [:]
    private lazy var expiry = ExpiryTimer { [weak self] in self?.dropExpired() }
    /// Called when offers are added, withdrawn or expire.
    var onChange: () -> Void = {}
    /// Called with each offer that expires.
    var onExpire: (Offer) -> Void = { _ in }
    /// Called with each offer of a device that ``replace(from:with:)`` leaves out as invalid, and why.
    var onRefused: (Offer, any Error) -> Void = { _, _ in }

    /// The most offers listed at once.
    static let maximumOffers = 64
    /// The most offers listed from one origin: one paired device, or `AddOffer` on this one.
    static let maximumOffersPerOrigin = 16

    /// Adds an offer held by batond (`AddOffer`, a phone's link); throws when the offer is
    /// invalid (``Offer/check()``), when the list, or the room of such offers, is full, or
    /// when the offer has already expired.
    func add(_ offer: Offer) throws {
        try offer.check()
        guard offers.count < Self.maximumOffers else {
            throw ServiceError.invalidArguments("too many offers (at most \(Self.maximumOffers))")
        }
        guard offers.values.filter({ $0.peerDeviceID == nil }).count < Self.maximumOffersPerOrigin else {
            throw ServiceError.invalidArguments(
                "too many offers added on this device (at most \(Self.maximumOffersPerOrigin)): remove one first")
        }
        guard !offer.summary.isExpired() else {
            throw ServiceError.invalidArguments("the activity has already expired")
        }
        offers[offer.id] = offer
        scheduleExpiry()
        onChange()
    }

    /// Withdraws an offer; returns it, or `nil` for an unknown id.
    @discardableResult
    func remove(_ id: String) -> Offer? {
        guard let offer = offers.removeValue(forKey: id) else { return nil }
        scheduleExpiry()
        onChange()
        return offer
    }

    /// Replaces the offers of the device `deviceID` with `offers`, most recent first (the
    /// order a device sends them in); offers that are invalid (``Offer/check()``, each told
    /// to ``onRefused``) or expired, or whose id another source or an earlier offer in the
    /// list uses, are left out, as are offers past ``maximumOffersPerOrigin`` or
    /// ``maximumOffers``.
    ///
    /// - Returns: the offers added and those withdrawn.
    func replace(from deviceID: String, with offers: [Offer]) -> (added: [Offer], withdrawn: [Offer]) {
        let previous = self.offers.values.filter { $0.peerDeviceID == deviceID }
        for offer in previous { self.offers[offer.id] = nil }
        var listed: [Offer] = []
        for offer in offers where !offer.summary.isExpired() && self.offers[offer.id] == nil {
            do {
                try offer.check()
            } catch {
                onRefused(offer, error)
                continue
            }
            guard listed.count < Self.maximumOffersPerOrigin, self.offers.count < Self.maximumOffers else { break }
            self.offers[offer.id] = offer
            listed.append(offer)
        }
        let previousIDs = Set(previous.map(\.id))
        let listedIDs = Set(listed.map(\.id))
        let added = listed.filter { !previousIDs.contains($0.id) }
        let withdrawn = previous.filter { !listedIDs.contains($0.id) }
        scheduleExpiry()
        if !added.isEmpty || !withdrawn.isEmpty || !previous.isEmpty { onChange() }
        return (added, withdrawn)
    }

    /// Shows the offers of the device `deviceID` under its new name.
    func rename(device deviceID: String, to name: String) {
        let renamed = offers.values.filter { $0.peerDeviceID == deviceID && $0.device != name }
        guard !renamed.isEmpty else { return }
        for var offer in renamed {
            offer.device = name
            offers[offer.id] = offer
        }
        onChange()
    }

    /// The listed offers, expired ones left out.
    var current: [Offer] {
        offers.values.filter { !$0.summary.isExpired() }.sorted { $0.id < $1.id }
    }

    /// Arms the timer for the earliest expiration; when it fires, expired offers go.
    private func scheduleExpiry() {
        expiry.arm(for: offers.values.compactMap(\.summary.expirationDate))
    }

    private func dropExpired() {
        let expired = offers.values.filter { $0.summary.isExpired() }
        for offer in expired { offers[offer.id] = nil }
        scheduleExpiry()
        guard !expired.isEmpty else { return }
        expired.forEach(onExpire)
        onChange()
    }
}
