import BatonBus
import Foundation

/// Documents' D-Bus half: their row of `Diagnose` (``Daemon/diagnosis()``), whether Syncthing
/// brings continued documents here.
extension Daemon {
    /// Whether continued documents in Syncthing folders are found here. Without Syncthing they
    /// still come, copied over the link: that passes too, saying so.
    func syncthingCheck() async -> DiagnosticCheck {
        guard let (file, config) = SyncthingAPI.localConfiguration() else {
            return .pass("syncthing", "not set up here: continued documents that are not on this device are copied over the link")
        }
        guard let api = config.api else {
            return .fail("syncthing", "\(file.path) names a GUI that is not plain HTTP on a loopback address, which batond does not use",
                         fix: "in Syncthing's settings, give the GUI a 127.0.0.1 address without HTTPS; until then documents are copied over the link")
        }
        do {
            let folders = try await api.folders()
            return .pass("syncthing", "Syncthing at \(api.host):\(api.port) shares \(folders.count) folder\(folders.count == 1 ? "" : "s"): documents in them open from this device's copy")
        } catch {
            return .fail("syncthing", "Syncthing does not answer at \(api.host):\(api.port): \(error)",
                         fix: "start Syncthing (systemctl --user start syncthing); until then documents are copied over the link")
        }
    }
}
