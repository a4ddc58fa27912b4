import BatonBus
import BatonGLib
import Foundation

/// The settings a person controls (`baton settings`, the `*Settings` and `Set*` methods;
/// `SetDeviceName` is the renames feature's, `Features/Renames/`), and what they change at
/// once: offers out and in, listings and notifications.
extension Daemon {
    /// The rows of ``methods`` for the settings.
    static var settingsMethods: [DaemonMethod] {
        [
            DaemonMethod("GetSettings") { daemon, call, _ in call.reply([.dictionary(daemon.settingsRecord)]) },
            DaemonMethod("SetHandoff", ["b"]) { daemon, call, arguments in
                let on = try arguments.bool(0)
                try daemon.change { $0.handoff = on }
                call.reply()
            },
            DaemonMethod("SetRecentDocuments", ["b"]) { daemon, call, arguments in
                let on = try arguments.bool(0)
                try daemon.change { $0.recentDocuments = on }
                call.reply()
            },
            DaemonMethod("SetNotifications", ["s"]) { daemon, call, arguments in
                let text = try arguments.string(0)
                guard let mode = HandoffSettings.Notifications(rawValue: text) else {
                    throw ServiceError.invalidArguments("notifications are \"on\" or \"quiet\", not \(text.debugDescription)")
                }
                try daemon.change { $0.notifications = mode }
                call.reply()
            },
            DaemonMethod("SetDeviceBlocked", ["s", "b"]) { daemon, call, arguments in
                try daemon.setDevice(try arguments.string(0), blocked: try arguments.bool(1))
                call.reply()
            },
            DaemonMethod("SetAppBlocked", ["s", "b"]) { daemon, call, arguments in
                let appID = try arguments.string(0)
                let blocked = try arguments.bool(1)
                // An adopting app by its id ("org.gnome.Maps"), an app of the recent list by its
                // program's name ("gedit"): either is a program name's kind of word.
                guard RunningPrograms.isProgramName(appID) else {
                    throw ServiceError.invalidArguments("invalid application id or program name \"\(appID.prefix(80))\"")
                }
                try daemon.change { settings in
                    if blocked { settings.blockedApps.insert(appID) } else { settings.blockedApps.remove(appID) }
                }
                call.reply()
            },
        ]
    }

    /// `SetDeviceBlocked`: only a paired device is blocked; any may be allowed.
    private func setDevice(_ device: String, blocked: Bool) throws {
        let id = try network.resolve(device)
        guard network.paired.devices[id] != nil || !blocked else {
            throw ServiceError.unknownDevice("\(device) is not paired: only paired devices are blocked or allowed")
        }
        try change { settings in
            if blocked { settings.blockedDevices.insert(id) } else { settings.blockedDevices.remove(id) }
        }
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
    func change(_ body: (inout HandoffSettings) -> Void) throws {
        guard try settingsStore.update(body) else { return }
        let settings = settingsStore.settings
        if let name = settings.name, name != network.name {
            logger.info("this device is now named \(name)")
            network.rename(to: name)
            thisDeviceRenamed()
        }
        logger.info("settings: Handoff \(settings.handoff ? "on" : "off"), notifications \(settings.notifications.rawValue), recent documents \(settings.recentDocuments ? "on" : "off"), clipboard \(settings.clipboard ? "on" : "off"), \(settings.blockedDevices.count) devices and \(settings.blockedApps.count) apps blocked")
        // Off, or its app blocked: the recent document offered now is withdrawn at once.
        recentDocuments.refresh()
        network.features.offers.changed()
        network.features.clipboard.policyChanged()
        activitiesChanged()
        offerNotifications.refreshAll()
        connection.emitSignal(path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                              name: "SettingsChanged", arguments: [.dictionary(settingsRecord)])
    }
}
