import BatonBus
import BatonGLib
import CGLib
import Foundation

/// `Diagnose`: what batond can tell of what is wrong. The checks outside batond (is it
/// running, its service file, does it start with the session) are `baton doctor`'s own. A
/// feature's checks live in its folder (`Features/ReachBack/Daemon+ReachBack.swift` the paired
/// devices', `Documents/` Syncthing's, `Domains/` the domains') and are listed in ``diagnosis()``.
extension Daemon {
    /// The row of ``methods`` for `Diagnose`.
    static var diagnosisMethods: [DaemonMethod] {
        [
            DaemonMethod("Diagnose") { daemon, call, _ in
                daemon.answer(call) { [.dictionaries(await daemon.diagnosis().map(\.record))] }
            },
        ]
    }

    func diagnosis() async -> [DiagnosticCheck] {
        var checks: [DiagnosticCheck] = []
        checks.append(discoveryStatus())
        if let listener = network.listener {
            if Self.isLoopback(listener.host) {
                checks.append(.fail("listening", "listening on \(listener.address), which only this machine can reach: other devices can neither find nor dial this one",
                                    fix: "listen on all addresses: remove --listen, or listen= from batond.conf or /etc/baton/batond.conf (or give 0.0.0.0:PORT)"))
            } else {
                checks.append(.pass("listening", "listening on \(listener.address)"))
            }
        } else {
            checks.append(.fail("listening", "not listening: other devices cannot reach this one",
                                fix: "see batond's log (journalctl --user -u batond); choose a free address with --listen HOST:PORT or listen= in batond.conf (a listen= in /etc/baton/batond.conf is every user's: another user's batond may hold its port)"))
        }
        checks += await pairedDeviceChecks()
        checks.append(await notificationCheck())
        checks += InstalledApps.entryChecks()
        checks.append(await syncthingCheck())
        checks += relayChecks
        if let tailnetCheck { checks.append(tailnetCheck) }
        if let domainCheck { checks.append(domainCheck) }
        checks += registeredAppChecks
        checks.append(settingsCheck)
        checks.append(recentDocumentsCheck)
        checks.append(clipboardCheck)
        return checks
    }

    /// Whether tailscaled's list of the tailnet's devices can be read, when batond reads it.
    private var tailnetCheck: DiagnosticCheck? {
        switch tailnet?.state {
        case nil: return nil
        case .success(true)?:
            let count = tailnet?.peers.count ?? 0
            return .pass("tailnet", "tailscaled is connected: \(count) device(s) that may run batond are dialed at port \(NetworkSettings.defaultPort)")
        case .success(false)?:
            return .pass("tailnet", "tailscaled runs but is not connected to its tailnet: its devices are not dialed")
        case .failure(let error)?:
            return .fail("tailnet", "cannot read the tailnet's devices: \(error)",
                         fix: "check `tailscale status`; or start batond with --no-tailnet")
        }
    }

    /// Whether this device is joined to each relay it is given (`relays=`, `--relay`): a
    /// paired device on another network reaches it only through one it is joined to.
    private var relayChecks: [DiagnosticCheck] {
        network.relays.map { client in
            let name = "relay \(client.relay.host):\(client.relay.port)"
            guard client.isJoined else {
                return .fail(name, "not joined: paired devices on other networks cannot reach this one through it"
                                 + (client.lastStatus.map { " (\($0))" } ?? ""),
                             fix: "check that the relay runs and is reachable, and that its id in relays= is the one it prints")
            }
            return .pass(name, "joined: paired devices that cannot dial this one reach it there")
        }
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1).
    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host.hasPrefix("127.") || host.lowercased() == "::ffff:127.0.0.1"
    }

    private func notificationCheck() async -> DiagnosticCheck {
        let reply = try? await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", method: "NameHasOwner",
                                               arguments: [.string("org.freedesktop.Notifications")], timeout: 5)
        if reply?.first?.bool == true {
            return .pass("notifications", "a notification server runs (org.freedesktop.Notifications)")
        }
        return .fail("notifications", "no notification server: offers are listed (baton activities) but never shown",
                     fix: "run a desktop session that has one (GNOME Shell, Plasma), or a notification daemon such as mako or dunst")
    }

    private var registeredAppChecks: [DiagnosticCheck] {
        registry.apps.values.sorted { $0.appID < $1.appID }.map { app in
            let check = "app \(app.appID)"
            if app.verification == "verified" {
                return .pass(check, "running (pid \(app.pid)), verified for what it registered")
            }
            // An entry of another name claiming the same team and types may be the app's own,
            // misnamed.
            let misnamed = app.verification == AppIdentity.noEntryDetail ? InstalledApps.all().first {
                $0.appID != app.appID && $0.teamID == app.teamID && !$0.activityTypes.isDisjoint(with: app.activityTypes)
            } : nil
            let rename = misnamed.map {
                "; or, if \($0.desktopFile) is its entry, rename it to \(app.appID).desktop: a desktop entry's file name must be its app's id"
            } ?? ""
            return .fail(check, "running (pid \(app.pid)) but \(app.verification): it receives no other device's activities",
                         fix: "install \(app.appID).desktop naming the program it runs, with X-Baton-TeamID=\(app.teamID) and X-Baton-ActivityTypes=\(app.activityTypes.sorted().joined(separator: ";"));" + rename)
        }
    }

    private var settingsCheck: DiagnosticCheck {
        let settings = settingsStore.settings
        var detail = "Handoff is \(settings.handoff ? "on" : "off"), notifications \(settings.notifications.rawValue)"
        if !settings.blockedDevices.isEmpty { detail += ", \(settings.blockedDevices.count) devices blocked" }
        if !settings.recentDocuments { detail += ", recent documents off" }
        if !settings.blockedApps.isEmpty { detail += ", apps blocked: \(settings.blockedApps.sorted().joined(separator: ", "))" }
        return settings.handoff ? .pass("settings", detail)
            : .fail("settings", detail + ": nothing is offered, and other devices' offers are hidden",
                    fix: "baton settings handoff on")
    }
}

extension InstalledApps {
    /// A check for each desktop entry that declares Baton claims: one the desktop cannot use
    /// (its program is missing, say) or whose claims are invalid fails.
    static func entryChecks() -> [DiagnosticCheck] {
        var seen = Set<String>()
        var checks: [DiagnosticCheck] = []
        for folder in applicationFolders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".desktop") {
                guard seen.insert(name).inserted else { continue }
                let file = folder.appendingPathComponent(name)
                // Entries without claims are not Baton's; a Hidden=true one is uninstalled.
                guard let keys = KeyFile(path: file.path), keys.bool("Desktop Entry", "Hidden") != true,
                      keys.string("Desktop Entry", teamIDKey) != nil || keys.string("Desktop Entry", activityTypesKey) != nil
                else { continue }
                let check = "entry \(name)"
                guard let app = read(file) else {
                    let info = g_desktop_app_info_new_from_filename(file.path)
                    if let info { g_object_unref(UnsafeMutableRawPointer(info)) }
                    let loads = info != nil
                    let problem = loads
                        ? "its X-Baton-TeamID and X-Baton-ActivityTypes are not a team and a list of valid activity types"
                        : "desktops cannot use it (its Exec= or TryExec= program is not installed, or it is not a valid entry)"
                    checks.append(.fail(check, "\(file.path): \(problem)",
                                        fix: "fix or remove \(file.path); desktop-file-validate says what is wrong"))
                    continue
                }
                let continues = "\(app.appID) continues \(app.activityTypes.sorted().joined(separator: ", ")) for team \(app.teamID)"
                if let problem = app.fileNameProblem {
                    checks.append(.fail(check, "\(file.path): \(problem): the app cannot be started to continue an activity",
                                        fix: "rename the file to the id the app gives GApplication (g_application_new, BatonApplication(applicationID:)), keeping .desktop"))
                } else if !app.invalidDomains.isEmpty {
                    checks.append(.fail(check, "\(file.path): \(DomainClaim.key) lists what is not a domain: " + app.invalidDomains.joined(separator: ", "),
                                        fix: "list host names such as mail.example.org, or *.example.org for its subdomains"))
                } else if !app.documentTypes.problems.isEmpty {
                    checks.append(.fail(check, "\(file.path): \(DocumentTypeClaims.key): " + app.documentTypes.problems.joined(separator: "; "),
                                        fix: "list MIME-TYPE:ACTIVITY-TYPE pairs whose activity types X-Baton-ActivityTypes claims, as Info.plist's CFBundleDocumentTypes declares them"))
                } else if case let unknown = app.documentTypes.mimeTypes.filter({ !InstalledApps.isKnownMIMEType($0) }),
                          !unknown.isEmpty {
                    checks.append(.fail(check, "\(file.path): \(DocumentTypeClaims.key) names MIME types this desktop does not know: "
                                            + unknown.joined(separator: ", ")
                                            + ": files are never of them, so their documents are not sent with their activities",
                                        fix: "install the app's shared-mime-info definition (a <mime-type> with a <glob> for each extension) in ~/.local/share/mime/packages and run update-mime-database ~/.local/share/mime"))
                } else {
                    let documents = app.documentTypes.pairs.isEmpty ? "" : ", documents of \(app.documentTypes.pairs.count) MIME types"
                    checks.append(.pass(check, continues + documents))
                }
            }
        }
        return checks
    }
}
