import BatonGLib
import BatonGtk
import CAdwaita
import CGtk
import Logging

@MainActor
extension BatonApplication {
    /// The example apps' `AdwApplication`: the session's one instance unless `standalone`,
    /// handling `open` (files and links from the command line or the desktop).
    public static func exampleApplication(id: String, standalone: Bool) -> UnsafeMutablePointer<GtkApplication> {
        let flags = GApplicationFlags(rawValue: (standalone ? nonUniqueFlags : defaultFlags).rawValue
                                          | G_APPLICATION_HANDLES_OPEN.rawValue)
        return baton_application(adw_application_new(id, flags))
    }

    /// Turns Handoff on for the team and activity types `info` declares; without a team,
    /// says in the log that Handoff is off.
    public func enableHandoff(declaredIn info: BundleInfo, logger: Logger) {
        guard let team = info.teamIdentifier else {
            return logger.warning("Handoff is off: Info.plist declares no BatonTeamIdentifier")
        }
        enableHandoff(teamIdentifier: team, activityTypes: info.allActivityTypes)
    }
}
