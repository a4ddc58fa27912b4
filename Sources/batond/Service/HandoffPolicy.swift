/// Whether a device or an app may take part in Handoff now, as the person's settings say:
/// the one gate every feature asks, for offers listed, shown, notified and continued here, and
/// for what this device offers and sends (offers, payloads, documents).
struct HandoffPolicy: Sendable {
    let settings: HandoffSettings

    init(_ settings: HandoffSettings) {
        self.settings = settings
    }

    /// Whether the paired device `deviceID` takes part: Handoff is on and the device is not
    /// blocked. `nil` stands for this device (an offer added here), which takes part whenever
    /// Handoff is on.
    func allows(device deviceID: String?) -> Bool {
        guard settings.handoff else { return false }
        guard let deviceID else { return true }
        return !settings.blockedDevices.contains(deviceID)
    }

    /// Whether the activities of the app `appID` go to the paired device `deviceID`: the
    /// device takes part and the app is not blocked.
    func allows(app appID: String, to deviceID: String) -> Bool {
        allows(device: deviceID) && !settings.blockedApps.contains(appID)
    }

    /// Whether `offer` is listed, shown and may be continued: its device takes part
    /// (``allows(device:)``). Blocked apps do not count: they are never offered out, but
    /// another device's offers are its own.
    func allows(_ offer: Offer) -> Bool {
        allows(device: offer.peerDeviceID)
    }

    /// Whether copies go to and come from the paired device `deviceID` (``ClipboardFeature``):
    /// the device takes part, the clipboard setting is on, and the device's clipboard is not
    /// blocked.
    func sharesClipboard(with deviceID: String) -> Bool {
        allows(device: deviceID) && settings.clipboard && !settings.clipboardBlockedDevices.contains(deviceID)
    }

    /// Whether `offer` is announced in a notification: it is shown, and notifications are on
    /// (not quiet).
    func notifies(_ offer: Offer) -> Bool {
        settings.notifications == .on && allows(offer)
    }
}

extension SettingsStore {
    /// The gate the settings make now.
    var policy: HandoffPolicy { HandoffPolicy(settings) }
}
