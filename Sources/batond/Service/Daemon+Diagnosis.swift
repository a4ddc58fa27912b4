import BatonBus
import BatonGLib
import CGLib
import Foundation

/// `Diagnose`: what batond can tell of what is wrong. The checks outside batond (is it
/// running, its service file, does it start with the session) are `baton doctor`'s own.
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
                                    fix: "listen on all addresses: remove --listen, or listen= from batond.conf (or give 0.0.0.0:PORT)"))
            } else {
                checks.append(.pass("listening", "listening on \(listener.address)"))
            }
        } else {
            checks.append(.fail("listening", "not listening: other devices cannot reach this one",
                                fix: "see batond's log (journalctl --user -u batond); choose a free address with --listen HOST:PORT or in batond.conf"))
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

    /// Whether the web domains apps claim are confirmed by their sites; none when no app
    /// claims one. A claim not fetched yet passes: batond fetches it at once.
    private var domainCheck: DiagnosticCheck? {
        let claims = domains.claimStates().filter { $0.state != .invalid }
        guard !claims.isEmpty else { return nil }
        let failed = claims.filter { $0.state == .failed }
        guard failed.isEmpty else {
            let list = failed.map { "\($0.appID) on \($0.domain): \($0.reason ?? "not verified")" }.joined(separator: "; ")
            return .fail("domains", "\(failed.count) of \(claims.count) web domain claim\(claims.count == 1 ? "" : "s") not confirmed by the site, so their pages open in the browser: \(list)",
                         fix: "the site must serve /.well-known/baton-app-site-association listing TEAM.APPID under activitycontinuation.apps; then run baton domains --verify")
        }
        let verified = claims.filter { $0.state == .verified }.count
        return .pass("domains", "\(verified) of \(claims.count) web domain claim\(claims.count == 1 ? "" : "s") confirmed by the site\(verified < claims.count ? ", the rest being fetched" : "")")
    }

    /// Whether continued documents in Syncthing folders are found here. Without Syncthing they
    /// still come, copied over the link: that passes too, saying so.
    private func syncthingCheck() async -> DiagnosticCheck {
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

    /// One check per paired device: linked, and, when this device dialed the link, able to
    /// dial this device back (asked of all the linked devices at once).
    private func pairedDeviceChecks() async -> [DiagnosticCheck] {
        let paired = network.paired.devices.values.sorted { $0.name < $1.name }
        guard !paired.isEmpty else {
            return [.fail("paired devices", "no paired device: there is nothing to hand off to",
                          fix: "pair with another device: baton devices, then baton pair DEVICE")]
        }
        let linked = paired.filter { network.devices[$0.id]?.link != nil }.map(\.id)
        let checks = linked.map { id in (id, Task { @MainActor in await network.features.reachBack.check(id) }) }
        var answers: [String: ReachBack] = [:]
        for (id, check) in checks { answers[id] = await check.value }
        return paired.map { device in
            let check = "device \(device.name)"
            if let answer = answers[device.id] {
                let linked = "paired and linked (\(PeerNetwork.shortID(device.id)))"
                switch answer {
                case .reached(let how):
                    return .pass(check, "\(linked); \(how)")
                case .unknown(let why):
                    return .pass(check, "\(linked); whether it can dial this device is not known: \(why)")
                case .unreachable(let problem):
                    let port = network.listener.map { String($0.port) } ?? "its port"
                    return .fail(check, "\(linked), but it cannot dial this device (\(problem)): when the link drops, only this device can restore it",
                                 fix: "let \(device.name) reach this device: allow TCP port \(port) in the firewall (sudo ufw allow \(port)/tcp), or listen on an address it can reach (batond --listen, or listen= in batond.conf)")
                }
            }
            let seen = device.address.map { "last linked at \($0)" } ?? "never linked"
            return .fail(check, "paired but not linked (\(seen)): its offers do not arrive and it cannot continue this device's",
                         fix: "turn \(device.name) on and start batond there; on another network, add it with batond --peer HOST:PORT; or baton unpair \(device.name)")
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
            return .fail(check, "running (pid \(app.pid)) but \(app.verification): it receives no other device's activities",
                         fix: "install \(app.appID).desktop naming the program it runs, with X-Baton-TeamID=\(app.teamID) and X-Baton-ActivityTypes=\(app.activityTypes.sorted().joined(separator: ";"));")
        }
    }

    private var settingsCheck: DiagnosticCheck {
        let settings = settingsStore.settings
        var detail = "Handoff is \(settings.handoff ? "on" : "off"), notifications \(settings.notifications.rawValue)"
        if !settings.blockedDevices.isEmpty { detail += ", \(settings.blockedDevices.count) devices blocked" }
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
                if !app.invalidDomains.isEmpty {
                    checks.append(.fail(check, "\(file.path): \(DomainClaim.key) lists what is not a domain: " + app.invalidDomains.joined(separator: ", "),
                                        fix: "list host names such as mail.example.org, or *.example.org for its subdomains"))
                } else if !app.documentTypes.problems.isEmpty {
                    checks.append(.fail(check, "\(file.path): \(DocumentTypeClaims.key): " + app.documentTypes.problems.joined(separator: "; "),
                                        fix: "list MIME-TYPE:ACTIVITY-TYPE pairs whose activity types X-Baton-ActivityTypes claims, as Info.plist's CFBundleDocumentTypes declares them"))
                } else {
                    let documents = app.documentTypes.pairs.isEmpty ? "" : ", documents of \(app.documentTypes.pairs.count) MIME types"
                    checks.append(.pass(check, continues + documents))
                }
            }
        }
        return checks
    }
}
