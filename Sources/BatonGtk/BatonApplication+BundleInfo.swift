import Baton
import BatonGLib
import Logging

extension BatonApplication {
    /// Connects the app to the Baton service for the team and activity types its Info.plist
    /// declares: its `BatonTeamIdentifier`, and its `NSUserActivityTypes` with the activity
    /// types of its document types (`BundleInfo.allActivityTypes`), so they are written
    /// once, in the Info.plist, and not again in code.
    ///
    /// ```swift
    /// let url = Bundle.module.url(forResource: "Info", withExtension: "plist", subdirectory: "Resources")
    /// try app.enableHandoff(bundleInfo: BundleInfo(contentsOf: url!))
    /// ```
    ///
    /// A document extension the desktop types otherwise than the Info.plist declares
    /// (`BundleInfo.mimeTypeMismatches`) is said in the log.
    ///
    /// - Throws: `BundleInfoError` when the Info.plist declares no `BatonTeamIdentifier`;
    ///   Handoff is then off.
    @discardableResult
    public func enableHandoff(bundleInfo: BundleInfo) throws -> HandoffClient {
        guard let team = bundleInfo.teamIdentifier, !team.isEmpty else {
            throw BundleInfoError(file: "", place: "BatonTeamIdentifier",
                                  reason: "is missing: Handoff needs the app's team (its desktop entry's X-Baton-TeamID)")
        }
        for mismatch in bundleInfo.mimeTypeMismatches {
            Logger(label: "baton.handoff").warning("\(mismatch): such documents are not sent with their activities")
        }
        return enableHandoff(teamIdentifier: team, activityTypes: bundleInfo.allActivityTypes)
    }
}
