import BatonBus
import BatonGLib
import BatonPeer

/// Pairing with another Baton device (`Pair`, `ConfirmPair`, `Unpair`, `CancelPair`), and the
/// notification that shows a pairing request.
extension Daemon {
    /// The rows of ``methods`` for pairing.
    static var pairingMethods: [DaemonMethod] {
        [
            DaemonMethod("Pair", ["s"]) { daemon, call, arguments in
                let device = try arguments.string(0)
                daemon.answer(call) { [network = daemon.network] in
                    let (deviceID, code) = try await network.pair(device)
                    return [.string(deviceID), .string(code)]
                }
            },
            DaemonMethod("ConfirmPair", ["s", "s"]) { daemon, call, arguments in
                let device = try arguments.string(0)
                let code = try arguments.string(1)
                daemon.answer(call) { [network = daemon.network] in [.bool(try await network.confirmPairing(device, code: code))] }
            },
            DaemonMethod("Unpair", ["s"]) { daemon, call, arguments in
                try daemon.network.unpair(try arguments.string(0))
                call.reply()
            },
            DaemonMethod("CancelPair", ["s"]) { daemon, call, arguments in
                try daemon.network.cancelPairing(try arguments.string(0))
                call.reply()
            },
        ]
    }

    static func pairingKey(_ deviceID: String) -> String { pairingKeyPrefix + deviceID }
    private static let pairingKeyPrefix = "pair:"

    /// Whether `key` is a pairing request's notification key (``pairingKey(_:)``).
    static func isPairingKey(_ key: String) -> Bool { key.hasPrefix(pairingKeyPrefix) }

    /// Shows a pairing request: the name the device gave itself and its short id, a warning
    /// when that name poses as a paired device's or this one's (``PeerNetwork/impersonated(by:)``),
    /// the code to type on that device (grouped, "093 954"), and Enter Code, which opens the
    /// Baton app to type the code that device shows. No action of the notification confirms.
    func showPairingRequest(from deviceID: String, code: String) {
        let shortID = PeerNetwork.shortID(deviceID)
        let name = network.claimedName(deviceID).flatMap { $0.isEmpty ? nil : $0 } ?? shortID
        var detail = ""
        var title = "Pairing request from “\(name)” (\(shortID))"
        if let impersonated = network.impersonated(by: deviceID) {
            title = "Pairing request from another device named “\(name)” (\(shortID))"
            detail += "Careful: this is not \(impersonated).\n"
        }
        detail += "If you asked “\(name)” to pair, type \(PairingCodeText.grouped(code)) there, then choose Enter Code to type the code "
            + "“\(name)” shows. Otherwise ignore this."
        notifier.show(key: Self.pairingKey(deviceID), title: title, detail: detail,
                      action: (id: Self.enterCodeAction, label: "Enter Code"))
    }

    /// The pairing notification's action: opens the Baton app, whose dialog takes the code.
    static let enterCodeAction = "enter-code"

    /// The person picked a pairing notification's action: Enter Code opens the Baton app
    /// (pairing is never confirmed from a notification).
    func pairingNotificationAction(_ action: String, activationToken: String?) {
        guard action == Self.enterCodeAction else { return }
        do {
            try BatonAppEntry.openForPairing(activationToken: activationToken)
        } catch {
            logger.notice("cannot open the Baton app to enter a pairing code: \(error); type it with baton pair --confirm")
        }
    }

    /// Whether the pairing request under the notification key `key` still stands.
    func isPairingShown(_ key: String) -> Bool {
        network.devices[String(key.dropFirst(Self.pairingKeyPrefix.count))]?.pairing != nil
    }
}
