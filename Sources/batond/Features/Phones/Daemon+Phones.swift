import Baton
import BatonBus
import BatonGLib
import Foundation

/// Phones paired with KDE Connect, GSConnect or Valent: listed beside Baton's devices, sent
/// an activity's web page (`SendToDevice`), and the links they share listed as offers.
extension Daemon: PhoneBridgeDelegate {
    /// The row of ``methods`` for `SendToDevice`.
    static var phoneMethods: [DaemonMethod] {
        [
            DaemonMethod("SendToDevice", ["s", "s"]) { daemon, call, arguments in
                try daemon.sendToDevice(call, activityID: try arguments.string(0), device: try arguments.string(1))
            },
        ]
    }

    /// The records of `ListDevices` for phones.
    var phoneRecords: [[String: BusValue]] {
        phones.all.map { phone in
            ["id": .string(phone.id), "name": .string(phone.name), "kind": .string(phone.kind), "paired": .bool(true),
             "connected": .bool(phone.isReachable), "via": .string(phone.via)]
        }
    }

    /// Sends the web page of the activity listed as `id` (the caller's own current activity
    /// when `id` is empty) to the phone `device` names.
    ///
    /// - Throws: ``ServiceError``: an unknown activity or device, an activity without a web page.
    func sendToDevice(_ call: BusMethodCall, activityID id: String, device: String) throws {
        let url: URL?
        let title: String?
        if id.isEmpty {
            guard let published = try registry.app(call.sender).current else {
                throw ServiceError.invalidArguments("the caller has no current activity to send")
            }
            (url, title) = (published.summary.webpageURL, published.summary.title ?? published.summary.activityType)
        } else {
            let source = try source(id)
            url = source.webpageURL
            title = source.title
        }
        guard let phone = phones.phone(device) else {
            let known = phones.all.map(\.name)
            throw ServiceError.unknownDevice("no paired phone is named \"\(Excerpt.of(device))\""
                + (known.isEmpty ? " (no phone is paired with KDE Connect, GSConnect or Valent here)" : " (phones: \(known.joined(separator: ", ")))"))
        }
        guard let url else {
            throw ServiceError.invalidArguments("“\(Excerpt.of(title ?? id))” has no web page, so it cannot be sent to \(phone.name): only an activity with a web page can")
        }
        answer(call) { [phones, logger] in
            do {
                try await phones.share(url, with: phone)
            } catch let error as PhoneError {
                throw ServiceError.activity(.handoffFailed(error.description))
            }
            logger.info("sent a web page to \(phone.name) through \(phone.via)")
            return []
        }
    }

    /// Sends the page of the offer `offerID` to the phone `phoneID`, as its notification's
    /// "Send to ‹phone›" asked.
    func sendFromNotification(_ offerID: String, toPhone phoneID: String) {
        guard let offer = offers.offers[offerID], let url = offer.summary.webpageURL,
              let phone = phones.all.first(where: { $0.id == phoneID }) else { return }
        Task { @MainActor in
            do {
                try await phones.share(url, with: phone)
                logger.info("sent offer \(offerID)'s web page to \(phone.name) through \(phone.via)")
            } catch {
                logger.notice("could not send offer \(offerID)'s web page to \(phone.name): \(error)")
            }
        }
    }

    func phonesChanged() {
        devicesChanged()
    }

    /// How long a link a phone shared stays listed.
    static let phoneOfferLifetime: TimeInterval = 30 * 60

    /// A link a phone shared: listed as an offer of a web page from that phone (in place of
    /// the one it shared before, for ``phoneOfferLifetime``), which continues in the app
    /// claiming its domain, or in the browser. Its title is its host in ASCII
    /// (``phoneOfferTitle(_:host:)``); a link whose host is not a valid name or address
    /// (``WebHost``) is refused, said in the log, and not listed.
    func phone(_ phone: Phone, shared url: URL) {
        let host: WebHost
        do {
            host = try WebHost(of: url)
        } catch {
            logger.notice("\(phone.name) shared a web page that is not listed: \(error)")
            return
        }
        if let previous = phoneOffers.removeValue(forKey: phone.id), let offer = offers.offers[previous] {
            offers.remove(previous)
            offerNotifications.withdraw(offer)
        }
        let payload = UserActivityPayload(activityType: UserActivity.browsingWebType, title: Self.phoneOfferTitle(url, host: host),
                                          webpageURL: url, expirationDate: Date().addingTimeInterval(Self.phoneOfferLifetime))
        do {
            let bytes = try payload.encodedBytes()
            let offer = Offer(id: ListingID.make(), summary: ActivitySummary(payload), appID: nil, teamID: nil,
                              device: phone.name, origin: .held(bytes))
            try offers.add(offer)
            phoneOffers[phone.id] = offer.id
            logger.info("\(phone.name) shared a web page\(host.isLocal ? " on a local address" : "") through \(phone.via): offer \(offer.id)")
            offerNotifications.show(offer)
        } catch {
            logger.notice("a web page shared by \(phone.name) cannot be listed: \(error)")
        }
    }

    /// What a phone-shared link's offer (and its notification) is titled: its host in ASCII
    /// (an internationalized name in punycode); for a host on this computer or its network
    /// (``WebHost/isLocal``) with the link's port and "(a page on a local address)", so that
    /// nobody opens `http://127.0.0.1:631/admin/…` taking it for a site.
    static func phoneOfferTitle(_ url: URL, host: WebHost) -> String {
        guard host.isLocal else { return host.description }
        return "\(host)\(url.port.map { ":\($0)" } ?? "") (\(localPageMark))"
    }

    /// The words that mark a phone-shared link to a local address.
    static let localPageMark = "a page on a local address"
}
