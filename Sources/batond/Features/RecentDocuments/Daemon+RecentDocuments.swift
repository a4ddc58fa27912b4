import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation

/// The D-Bus and offer half of recent documents: what this device offers when no adopting app
/// is in use, how it is listed, and its payload for a paired device that continues it.
extension Daemon {
    /// The offer this device makes its paired devices: the current activity of an adopting app
    /// in use (one of its windows is active) always; else a document of the recent list, when
    /// one is chosen; else the adopting app used last.
    var offeredNow: (listingID: String, summary: ActivitySummary, appID: String, teamID: String)? {
        let adopting = registry.offered.map { (listingID: $0.1.listingID, summary: $0.1.summary, appID: $0.0.appID, teamID: $0.0.teamID) }
        if registry.apps.values.contains(where: \.isActive) { return adopting }
        if let recent = recentDocuments.current, let summary = recentDocuments.summary {
            return (recent.listingID, summary, recent.entry.program ?? recent.entry.appName, RecentDocuments.teamID)
        }
        return adopting
    }

    /// The listing record of the recent document offered, for `ListActivities`: local, from
    /// the recent list.
    var recentDocumentRecords: [[String: BusValue]] {
        guard let recent = recentDocuments.current, let summary = recentDocuments.summary else { return [] }
        var record = summary.record
        record["id"] = .string(recent.listingID)
        record["origin"] = .string("local")
        record["device"] = .string("this device")
        record["app-id"] = .string(recent.entry.program ?? recent.entry.appName)
        record["team-id"] = .string(RecentDocuments.teamID)
        record["source"] = .string("recent list")
        return [record]
    }

    /// The apps of the recent list, for `ListApps`, but for those listed as adopting apps.
    func recentListAppRecords(besides adopting: Set<String>) -> [[String: BusValue]] {
        RecentListApps.records(recentDocuments.listedApps.filter { !adopting.contains($0.program) })
    }

    /// What `GetStatus` says this device offers its paired devices (`offered`): the listing
    /// record of ``offeredNow``, with `source` "recent list" or "app"; `nil` when nothing is,
    /// or Handoff is off, or the app is blocked.
    var offeredRecord: [String: BusValue]? {
        let settings = settingsStore.settings
        guard settings.handoff, let offered = offeredNow, !settings.blockedApps.contains(offered.appID) else { return nil }
        var record = offered.summary.record
        record["id"] = .string(offered.listingID)
        record["app-id"] = .string(offered.appID)
        record["team-id"] = .string(offered.teamID)
        record["source"] = .string(recentDocuments.current?.listingID == offered.listingID ? "recent list" : "app")
        return record
    }

    /// `baton doctor`'s check of the recent documents: the setting, whether the list reads, and
    /// how the document in use is told (the active window, or what was used lately). Off is
    /// the person's choice, not a fault; only a list that exists but cannot be read fails.
    var recentDocumentsCheck: DiagnosticCheck {
        let name = "recent documents"
        guard settingsStore.settings.recentDocuments else {
            return .pass(name, "off: documents open in apps that do not adopt Baton are not offered (baton settings recent-documents on)")
        }
        let state = recentDocuments.state
        let how = state.knowsActiveWindow
            ? "the document of the app whose window is active is offered"
            : "the desktop does not say which window is active (a Wayland session, or no X11 window manager), so the document of a running app used in the last \(Int(RecentDocumentChoice.recentEnough / 60)) minutes is offered"
        switch state.list {
        case nil:
            return .pass(name, "on, but the desktop's recent list (\(RecentList.standardFile.path)) does not exist yet: apps write it when you open a document")
        case .success(let count)?:
            return .pass(name, "on: the recent list holds \(count) document(s) that may be offered; \(how)")
        case .failure(let error)?:
            return .fail(name, "on, but \(error): the documents a list held are not offered once it has been unreadable for \(Int(RecentDocuments.unreadableGrace)) s",
                         fix: "check \(RecentList.standardFiles.map(\.path).joined(separator: " and ")): each should be a file of GTK's recent list; removing one lets its app write it anew")
        }
    }

    /// The payload of the recent document listed as `activityID`, with its file described to
    /// `deviceID`; `nil` when that is not the recent document offered.
    func recentDocumentPayload(_ activityID: String, to deviceID: String) async -> Result<FetchedPayload, UserActivityError>? {
        guard let recent = recentDocuments.current, recent.listingID == activityID else { return nil }
        guard settingsStore.policy.allows(app: recent.entry.program ?? recent.entry.appName, to: deviceID) else {
            return .failure(.handoffFailed("the activity \(activityID) is not offered to this device"))
        }
        do {
            let bytes = try recentDocuments.payload()
            let document = await sharedDocuments.describeRecent(URL(fileURLWithPath: recent.entry.path), activityID: activityID,
                                                                to: deviceID)
            return .success(FetchedPayload(bytes: bytes, document))
        } catch {
            return .failure(ServiceError.userActivityError(from: error))
        }
    }

    /// Whether the recent list's `entry` is of an app that adopts Baton and is registered now:
    /// named by its app id (as BatonGtk's apps name themselves in the list), or running the
    /// program of a registered app's process. Such an app offers its own activity.
    func isOfAdoptingApp(_ entry: RecentList.Entry) -> Bool {
        registry.apps.values.contains { app in
            app.appID == entry.appName || (entry.program != nil && RunningPrograms.program(of: app.pid) == entry.program)
        }
    }
}
