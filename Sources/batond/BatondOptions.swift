import ArgumentParser
import BatonBus
import BatonGLib
import BatonPeer
import Foundation
import Logging

/// batond's command line.
struct BatondOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batond",
        abstract: "The per-user Baton continuity service: D-Bus for local apps, TLS to paired devices.",
        discussion: """
            batond owns org.baton.Daemon on the session bus. Apps built on BatonGtk register \
            with it and publish their current activity; the baton command-line tool lists and \
            continues activities and pairs devices through it. It links with other devices \
            over mutual TLS, found through DNS-SD (avahi-daemon) or given as static peers. \
            Network settings may also be kept in CONFIG-DIR/batond.conf, a key file with a \
            [network] group: name=, listen=IP:PORT, peers=HOST:PORT;HOST:PORT, \
            relays=relay://HOST:PORT/?id=ID;…, and for every user of the machine in \
            /etc/baton/batond.conf, read first: a key in the user's file replaces the same key \
            there. Command-line options win; peers and relays from both are used. It is normally started by D-Bus activation \
            or its systemd user unit; run it in the foreground for development. When another \
            batond already owns the name, it exits at once with status 0, so a second start \
            (session autostart beside D-Bus activation) is harmless. Under systemd, with \
            standard error going to the journal, its log lines carry journal priorities.
            """,
        version: BatonVersion.string)

    @Option(help: "The folder for the service's state, created 0700 (default: $XDG_STATE_HOME/baton).")
    var stateDir: String?

    @Option(help: "The folder for the device identity, pairings and batond.conf, created 0700 (default: $XDG_CONFIG_HOME/baton).")
    var configDir: String?

    /// The machine-wide `batond.conf` (``NetworkSettings/machineFilePath``); tests point it elsewhere.
    @Option(help: .hidden)
    var machineConfig: String = NetworkSettings.machineFilePath

    @Option(help: "This device's name as other devices show it (default: the host name).")
    var name: String?

    @Option(help: "The address to listen on for other devices, IP:PORT (default: 0.0.0.0:\(NetworkSettings.defaultPort); port 0 picks a free one).")
    var listen: String?

    @Option(help: "A device to dial, HOST:PORT, where DNS-SD does not reach. Repeat for several.")
    var peer: [String] = []

    @Option(help: ArgumentHelp("A relay server (Syncthing's relay protocol, strelaysrv) through which paired devices that cannot be dialed are reached, and reach this one: relay://HOST:PORT/?id=RELAY-ID. Repeat for several.", valueName: "uri"))
    var relay: [String] = []

    @Flag(help: "Do not use DNS-SD (avahi-daemon) to announce this device or find others.")
    var noDiscovery = false

    @Option(help: ArgumentHelp("tailscaled's LocalAPI socket, from which the devices of the user's tailnet are read and dialed at batond's default port.", valueName: "path"))
    var tailscaleSocket: String = "/run/tailscale/tailscaled.sock"

    @Flag(help: "Do not read the devices of the user's tailnet from tailscaled.")
    var noTailnet = false

    @Option(help: .hidden)
    var tailnetInterval: UInt32 = 60

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Option(help: "Seconds an app may take to save an activity when asked for it.")
    var saveTimeout: Double = Timeouts.standard.save

    @Option(help: "Seconds an app may take to start and register.")
    var launchTimeout: Double = Timeouts.standard.launch

    @Option(help: "Seconds an app may take to restore a delivered activity.")
    var restoreTimeout: Double = Timeouts.standard.restore

    @Option(help: "Seconds a paired device may take to send an activity's payload.")
    var fetchTimeout: Double = Timeouts.standard.fetch

    @Option(help: "Seconds to wait for a continued document to sync here (Syncthing) before copying it from the other device.")
    var documentSyncTimeout: Double = Timeouts.standard.documentSync

    @Option(help: "Seconds of quiet on a link before the system checks that the other device is still there (TCP keepalive); one that answers nothing for twice that is dropped. A link through a relay is pinged instead, and dropped when silent for three times that.")
    var keepalive: Double = 10

    @Option(help: "Seconds a link with a device that is not paired stays open while no pairing is under way.")
    var unpairedLinkLifetime: Double = PeerNetwork.standardUnpairedLinkLifetime

    @Option(help: ArgumentHelp("A PEM file of certificate authorities to trust, beside the system's, when verifying the web domains apps claim (a company's own CA, or a test CA).", valueName: "file"))
    var trustCa: String?

    @Option(help: "The fewest seconds a site's association file is kept before it is fetched again, whatever the site's max-age says.")
    var domainRecheckMinimum: Double = DomainVerifier.standardMinimumAge

    @Option(help: "Seconds a copy stays on offer to paired devices, at most 120 (shorter for tests).")
    var clipboardLifetime: Double = ClipboardFeature.standardLifetime

    func validate() throws {
        guard saveTimeout <= 50, fetchTimeout <= 50 else {
            throw ValidationError("--save-timeout and --fetch-timeout must be at most 50 s: apps give up on a continuation after 60 s")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level \"\(Excerpt.of(logLevel))\"")
        }
        for (option, value) in [("--save-timeout", saveTimeout), ("--launch-timeout", launchTimeout),
                                ("--restore-timeout", restoreTimeout), ("--fetch-timeout", fetchTimeout),
                                ("--document-sync-timeout", documentSyncTimeout),
                                ("--keepalive", keepalive), ("--unpaired-link-lifetime", unpairedLinkLifetime),
                                ("--domain-recheck-minimum", domainRecheckMinimum)] {
            guard value.isFinite, value > 0, value <= 3600 else {
                throw ValidationError("\(option) must be a number of seconds between 0 and 3600")
            }
        }
        guard clipboardLifetime.isFinite, clipboardLifetime >= 1, clipboardLifetime <= ClipboardFeature.standardLifetime else {
            throw ValidationError("--clipboard-lifetime must be a number of seconds between 1 and \(Int(ClipboardFeature.standardLifetime))")
        }
        if let listen { _ = try NetworkSettings.listenEndpoint(listen, what: "--listen") }
        for address in peer { _ = try NetworkSettings.endpoint(address, what: "--peer") }
        for address in relay {
            do {
                _ = try RelayAddress(address)
            } catch {
                throw ValidationError("--relay: \(error)")
            }
        }
        if let name { try NetworkSettings.checkName(name) }
    }

    var timeouts: Timeouts {
        Timeouts(save: saveTimeout, launch: launchTimeout, restore: restoreTimeout, fetch: fetchTimeout,
                 call: Timeouts.standard.call, documentSync: documentSyncTimeout)
    }

    var stateDirectory: URL {
        if let stateDir { return URL(fileURLWithPath: stateDir, isDirectory: true) }
        return XDGDirectories.stateHome.appendingPathComponent("baton", isDirectory: true)
    }

    var machineConfigFile: URL { URL(fileURLWithPath: machineConfig) }

    var configDirectory: URL {
        if let configDir { return URL(fileURLWithPath: configDir, isDirectory: true) }
        return XDGDirectories.configHome.appendingPathComponent("baton", isDirectory: true)
    }
}
