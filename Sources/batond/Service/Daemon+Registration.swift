import BatonBus
import BatonGLib
import Foundation

/// `Register`: who the caller is, checked before anything changes; then its current activity
/// (`PublishCurrent`, `ResignCurrent`, `SetActive`).
extension Daemon {
    /// The rows of ``methods`` for registering and publishing the current activity.
    static var registrationMethods: [DaemonMethod] {
        [
            DaemonMethod("Register", ["s", "s", "as"]) { daemon, call, arguments in
                try daemon.register(call, appID: try arguments.string(0), teamID: try arguments.string(1),
                                    activityTypes: try arguments.strings(2))
            },
            DaemonMethod("PublishCurrent", ["s", "a{sv}"]) { daemon, call, arguments in
                try daemon.registry.publish(busName: call.sender, appActivityID: try arguments.string(0),
                                            summary: ActivitySummary(record: try arguments.dictionary(1)))
                call.reply()
            },
            DaemonMethod("ResignCurrent") { daemon, call, _ in
                try daemon.registry.resign(busName: call.sender)
                call.reply()
            },
            DaemonMethod("SetActive", ["b"]) { daemon, call, arguments in
                try daemon.registry.setActive(busName: call.sender, try arguments.bool(0))
                call.reply()
            },
        ]
    }

    /// Registers the caller of `call` as `appID` once the bus said which process it is and
    /// ``AppVerifier`` decided whether that process is the app and which of its claims are
    /// backed, or answers with the error that refused it, changing nothing. A host app whose
    /// program is not the one its entry names registers unverified, with a notice.
    func register(_ call: BusMethodCall, appID: String, teamID: String, activityTypes: [String]) throws {
        try AppRegistry.check(appID: appID, teamID: teamID, activityTypes: activityTypes)
        let sender = call.sender
        Task { @MainActor in
            do {
                let credentials: BusPeerCredentials
                do {
                    credentials = try await connection.peerCredentials(of: sender)
                } catch {
                    throw ServiceError.accessDenied("batond cannot tell which process is behind \(sender): \(error)")
                }
                guard credentials.isSameUser else {
                    throw ServiceError.accessDenied("only processes of this user may register (\(sender) runs as uid \(credentials.uid))")
                }
                let evidence = AppVerifier.evidence(for: credentials, appID: appID)
                let identity = try AppVerifier.identity(of: appID, teamID: teamID, evidence: evidence,
                                                        searchPath: ProcessExecutable.searchPath)
                let app = try registry.register(busName: sender, appID: appID, teamID: teamID,
                                                activityTypes: activityTypes, pid: credentials.pid, identity: identity)
                guard await isOnBus(sender) else {
                    registry.remove(busName: sender)
                    return
                }
                let who = "\(appID) (\(sender), pid \(credentials.pid))"
                if identity.isVerified {
                    logger.info("registered \(who), verified by \(identity.detail), \(activityTypes.count) activity types: \(app.verification)")
                } else if evidence.entry != nil {
                    logger.notice("registered \(who) unverified: \(identity.detail); it receives no other device's activity, and only this user's own when no verified or installed app continues it")
                } else {
                    logger.info("registered \(who), unverified: \(identity.detail), \(activityTypes.count) activity types")
                }
                call.reply()
            } catch {
                logger.notice("refused the registration of \(appID) by \(sender): \(error)")
                call.fail(with: error)
            }
        }
    }

    /// Whether `busName` still has an owner: a caller that left while it was being checked is
    /// not kept registered (its leaving may have been seen before it registered).
    private func isOnBus(_ busName: String) async -> Bool {
        let reply = try? await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", method: "NameHasOwner",
                                               arguments: [.string(busName)], timeout: 5)
        return reply?.first?.bool ?? false
    }
}
