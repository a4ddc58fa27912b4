import BatonBus

/// The clipboard's D-Bus half: its settings (`SetClipboard`, `SetDeviceClipboard`), its
/// line of `GetStatus` and its check for `Diagnose`, and the policy its network half asks.
extension Daemon {
    /// The rows of ``methods`` for the clipboard.
    static var clipboardMethods: [DaemonMethod] {
        [
            DaemonMethod("SetClipboard", ["b"]) { daemon, call, arguments in
                let on = try arguments.bool(0)
                try daemon.change { $0.clipboard = on }
                call.reply()
            },
            DaemonMethod("SetDeviceClipboard", ["s", "b"]) { daemon, call, arguments in
                let device = try arguments.string(0)
                let on = try arguments.bool(1)
                let id = try daemon.network.resolve(device)
                guard daemon.network.isPaired(id) || on else {
                    throw ServiceError.unknownDevice("\(device) is not paired: only a paired device's clipboard is shared or not")
                }
                try daemon.change { settings in
                    if on { settings.clipboardBlockedDevices.remove(id) } else { settings.clipboardBlockedDevices.insert(id) }
                }
                call.reply()
            },
        ]
    }

    /// Makes the session's clipboard (``LocalClipboards``) and hands it to the network half.
    func startClipboard(environment: [String: String]) {
        let made = LocalClipboards.make(environment: environment, logger: logger)
        clipboardSide = made.status
        if let clipboard = made.clipboard {
            network.features.clipboard.start(with: clipboard)
            logger.info("clipboard: \(made.status)")
        } else {
            logger.notice("clipboard: not shared: \(made.status)")
        }
    }

    /// Whether copies go to and come from the paired device `deviceID` now.
    func sharesClipboard(with deviceID: String) -> Bool {
        settingsStore.policy.sharesClipboard(with: deviceID)
    }

    /// `GetStatus`' `clipboard` line: on or off, the clipboard in use or why none, and what is
    /// on offer.
    var clipboardStatus: String {
        let settings = settingsStore.settings
        guard settings.clipboard else { return "off (baton settings clipboard on)" }
        guard network.features.clipboard.clipboard != nil else { return "on, but not shared: \(clipboardSide)" }
        let blocked = settings.clipboardBlockedDevices.isEmpty ? "" : ", not with \(settings.clipboardBlockedDevices.count) devices"
        return "on (\(clipboardSide)\(blocked)): \(network.features.clipboard.summary)"
    }

    /// `Diagnose`' clipboard check: off is a choice; on without a clipboard fails, saying why.
    var clipboardCheck: DiagnosticCheck {
        let name = "clipboard"
        guard settingsStore.settings.clipboard else {
            return .pass(name, "off: copies are not shared with paired devices (baton settings clipboard on)")
        }
        guard network.features.clipboard.clipboard != nil else {
            return .fail(name, "on, but copies cannot be shared: \(clipboardSide)",
                         fix: "the clipboard is shared in X11 sessions and on Wayland compositors with the data-control protocol (sway, KDE Plasma); or turn it off: baton settings clipboard off")
        }
        return .pass(name, "on: \(clipboardSide); copies are offered to paired devices for \(Int(network.features.clipboard.lifetime)) s")
    }
}
