import Baton
import BatonBus
import BatonGLib

/// Offers added on this device (`AddOffer`, `RemoveOffer`): listed as another device's are,
/// with batond holding the payload.
extension Daemon {
    /// The rows of ``methods`` for offers added on this device.
    static var offerMethods: [DaemonMethod] {
        [
            DaemonMethod("AddOffer", ["ay", "a{sv}"]) { daemon, call, arguments in
                let bytes = try arguments.bytes(0)
                let options = try arguments.dictionary(1)
                let offer = Offer(id: ListingID.make(), summary: ActivitySummary(try ContinuationBroker.decode(bytes)),
                                  appID: try Self.option(options, "app-id"), teamID: try Self.option(options, "team-id"),
                                  device: try Self.option(options, "device") ?? "this device", origin: .held(bytes))
                try daemon.offers.add(offer)
                daemon.logger.info("offer \(offer.id) added: \(offer.summary.activityType)")
                daemon.offerNotifications.show(offer)
                call.reply([.string(offer.id)])
            },
            DaemonMethod("RemoveOffer", ["s"]) { daemon, call, arguments in
                let id = try arguments.string(0)
                guard let offer = daemon.offers.offers[id], offer.peerDeviceID == nil else {
                    throw ServiceError.unknownActivity(id)
                }
                daemon.offers.remove(id)
                daemon.offerNotifications.withdraw(offer)
                call.reply()
            },
        ]
    }
}
