import BatonBus
import BatonGLib
import Foundation

/// The settings a person controls (`baton settings`, the `*Settings` and `Set*` methods), and
/// what they change at once: offers out and in, listings and notifications.
extension Daemon {
    /// Whether `offer` is listed, shown and may be continued: Handoff is on, and its device
    /// (if it comes from one) is not blocked.
    func isShown(_ offer: Offer) -> Bool {
        let settings = settingsStore.settings
        guard settings.handoff else { return false }
        if let deviceID = offer.peerDeviceID, settings.blockedDevices.contains(deviceID) { return false }
        return true
    }

    /// Shows the notification of the device's most recent offer, or withdraws it, as the
    /// settings and the offer now say.
    func refreshNotification(of deviceID: String) {
        if let id = latestOffers[deviceID], let offer = offers.offers[id] {
            notify(offer)
        } else if notifiedOffers.removeValue(forKey: Self.deviceKey(deviceID))?.isShown == true {
            notifier.withdraw(key: Self.deviceKey(deviceID))
        }
    }

    func handleSettings(_ call: BusMethodCall) throws {
        let arguments = call.arguments
        switch call.method {
        case "GetSettings":
            return call.reply([.dictionary(settingsRecord)])
        case "SetDeviceName":
            guard let name = arguments.at(0)?.string else { throw ServiceError.invalidArguments("expected (s)") }
            guard !isNameFixed else {
                throw ServiceError.invalidArguments("this device's name is fixed by batond's --name option: start batond without it to rename the device here")
            }
            do {
                try NetworkSettings.checkName(name)
            } catch {
                throw ServiceError.invalidArguments("\(error)")
            }
            try change { $0.name = name }
        case "SetHandoff":
            guard let on = arguments.at(0)?.bool else { throw ServiceError.invalidArguments("expected (b)") }
            try change { $0.handoff = on }
        case "SetNotifications":
            guard let text = arguments.at(0)?.string else { throw ServiceError.invalidArguments("expected (s)") }
            guard let mode = HandoffSettings.Notifications(rawValue: text) else {
                throw ServiceError.invalidArguments("notifications are \"on\" or \"quiet\", not \(text.debugDescription)")
            }
            try change { $0.notifications = mode }
        case "SetDeviceBlocked":
            guard let device = arguments.at(0)?.string, let blocked = arguments.at(1)?.bool else {
                throw ServiceError.invalidArguments("expected (s, b)")
            }
            let id = try network.resolve(device)
            guard network.paired.devices[id] != nil || !blocked else {
                throw ServiceError.unknownDevice("\(device) is not paired: only paired devices are blocked or allowed")
            }
            try change { settings in
                if blocked { settings.blockedDevices.insert(id) } else { settings.blockedDevices.remove(id) }
            }
        case "SetAppBlocked":
            guard let appID = arguments.at(0)?.string, let blocked = arguments.at(1)?.bool else {
                throw ServiceError.invalidArguments("expected (s, b)")
            }
            try AppRegistry.check(appID: appID, teamID: "x", activityTypes: [])
            try change { settings in
                if blocked { settings.blockedApps.insert(appID) } else { settings.blockedApps.remove(appID) }
            }
        default:
            return
        }
        call.reply()
    }

    /// The settings' record, with this device's name.
    var settingsRecord: [String: BusValue] {
        var record = settingsStore.settings.record
        record["name"] = .string(network.name)
        record["name-fixed"] = .bool(isNameFixed)
        return record
    }

    /// Applies and saves a change; when something changed, it takes effect at once and
    /// `SettingsChanged` tells.
    private func change(_ body: (inout HandoffSettings) -> Void) throws {
        guard try settingsStore.update(body) else { return }
        let settings = settingsStore.settings
        if let name = settings.name, name != network.name {
            logger.info("this device is now named \(name)")
            network.rename(to: name)
            thisDeviceRenamed()
        }
        logger.info("settings: Handoff \(settings.handoff ? "on" : "off"), notifications \(settings.notifications.rawValue), \(settings.blockedDevices.count) devices and \(settings.blockedApps.count) apps blocked")
        network.features.offers.changed()
        activitiesChanged()
        for deviceID in Array(latestOffers.keys) { refreshNotification(of: deviceID) }
        for offer in offers.offers.values where offer.peerDeviceID == nil { notify(offer) }
        connection.emitSignal(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              name: "SettingsChanged", arguments: [.dictionary(settingsRecord)])
    }
}
