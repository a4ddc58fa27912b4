import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

let options = BatondOptions.parseOrExit()
// Swift concurrency's global jobs run on a GLib pool, not libdispatch's, whose monitor would
// wake batond every second from the first `await` on (see GLibGlobalExecutor).
GLibGlobalExecutor.install()
// An app, an X server or a compositor that closes its end makes a write fail (EPIPE) rather
// than end batond (Xlib and pipes to pasting apps write without MSG_NOSIGNAL).
signal(SIGPIPE, SIG_IGN)
let level = Logger.Level(rawValue: options.logLevel) ?? .info
// Under systemd with standard error in the journal, lines carry the journal's priorities
// and no timestamp of their own; anywhere else, swift-log's usual format.
let toJournal = JournalStream.isStandardError()
LoggingSystem.bootstrap { label in
    if toJournal {
        var handler = JournalLogHandler()
        handler.logLevel = level
        return handler
    }
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = level
    return handler
}

let status: Int32 = MainActor.assumeIsolated {
    var logger = Logger(label: "batond")
    logger.logLevel = level
    do {
        try FileManager.default.createDirectory(at: options.stateDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    } catch {
        logger.critical("cannot create the state folder \(options.stateDirectory.path): \(error)")
        return 1
    }
    let settings: NetworkSettings
    let handoffSettings: SettingsStore
    let network: PeerNetwork
    do {
        try PrivateFiles.makeDirectory(options.configDirectory)
        handoffSettings = try SettingsStore(directory: options.configDirectory)
        settings = try NetworkSettings(options: options, directory: options.configDirectory,
                                       chosenName: handoffSettings.settings.name)
    } catch {
        logger.critical("cannot use the configuration: \(error)")
        return 1
    }
    do {
        let (identity, created) = try DeviceIdentity.loadOrCreate(in: options.configDirectory)
        if created { logger.info("made this device's identity \(identity.deviceID)") }
        let paired = try PairedDevices(directory: options.configDirectory)
        network = try PeerNetwork(identity: identity, name: settings.name, paired: paired,
                                  keepalive: options.keepalive, fetchTimeout: options.timeouts.fetch, logger: logger)
        network.unpairedLinkLifetime = options.unpairedLinkLifetime
        network.features.clipboard.lifetime = options.clipboardLifetime
    } catch let error as ConfigError {
        logger.critical("cannot use the paired devices: \(error)")
        return 1
    } catch {
        logger.critical("cannot set up the network identity: \(error)")
        return 1
    }
    let connection: BusConnection
    do {
        connection = try BusConnection.session()
    } catch {
        logger.critical("no D-Bus session bus: \(error)")
        return 1
    }
    let domains: DomainVerifier
    do {
        let authorities = try options.trustCa.map { try TrustedAuthorities(path: $0) }
        let fetcher = AssociationFileFetcher(extraAuthorities: authorities)
        domains = DomainVerifier(stateDirectory: options.stateDirectory, minimumAge: options.domainRecheckMinimum,
                                 logger: logger, fetch: { await fetcher.fetch(host: $0) })
    } catch {
        logger.critical("cannot use --trust-ca: \(error)")
        return 1
    }
    let daemon = Daemon(connection: connection, network: network, settings: handoffSettings, domains: domains,
                        timeouts: options.timeouts, logger: logger)
    daemon.isNameFixed = settings.isNameFixed
    do {
        try daemon.start()
    } catch {
        logger.critical("cannot export \(BatonService.daemonPath): \(error)")
        return 1
    }
    let discovery = AvahiDiscovery(logger: logger)
    daemon.discoveryStatus = {
        options.noDiscovery ? .pass("discovery", "off (--no-discovery): devices on this network are not found; static peers (--peer), paired devices and the tailnet's are still dialed")
            : discovery.status
    }
    if !options.noTailnet {
        daemon.tailnet = TailnetWatcher(socketPath: options.tailscaleSocket, interval: max(1, options.tailnetInterval), logger: logger)
    }
    let watcher = NetworkWatcher(logger: logger)
    let resolvers = PairedDeviceResolvers(logger: logger, pairedDevices: { Set(network.paired.devices.keys) })
    let loop = g_main_loop_new(nil, 0)
    var exitStatus: Int32 = 0
    /// Listens, dials and announces this device: only once this batond is the service, so
    /// that a second one started by mistake never takes links from the first.
    @MainActor func startNetwork() throws {
        do {
            try network.start(host: settings.host, port: settings.port, peers: settings.peers)
        } catch where !settings.isListenChosen {
            logger.notice("port \(settings.port) is taken (\(error)); listening on a free port instead")
            try network.start(host: settings.host, port: 0, peers: settings.peers)
        }
        network.relayLinks.start(settings.relays)
        if let tailnet = daemon.tailnet {
            tailnet.onPeers = { peers in network.dialTailnet(peers, port: NetworkSettings.defaultPort) }
            tailnet.start()
        }
        if !options.noDiscovery, let port = network.listener?.port {
            discovery.start(deviceID: network.identity.deviceID, port: port, name: network.name,
                            found: { deviceID, host, port, name in
                network.discovered(PeerAddress.format(host: host, port: UInt32(port)), deviceID: deviceID, name: name)
            }, lost: { deviceID in
                network.undiscovered(deviceID)
            })
            network.onRename = { name in discovery.rename(to: name) }
        }
        watcher.onWake = { reason in
            network.recheckLinks(because: reason)
            // A GLib timer stands still while the machine sleeps: an answer that expired
            // meanwhile is fetched now, not a sleep's length late.
            domains.refresh()
        }
        watcher.start()
        if !options.noDiscovery {
            resolvers.onFound = { deviceID, address, previous in
                network.rediscovered(address, deviceID: deviceID, replacing: previous)
            }
            network.paired.onChange = { resolvers.refresh() }
            resolvers.start()
        }
        logger.info("this device is \(settings.name) (\(network.identity.deviceID)), listening on \(network.listener?.address ?? "-")")
    }
    var ownedName = false
    connection.ownName(BatonService.busName, acquired: {
        ownedName = true
        logger.info("batond \(BatonVersion.string) is \(BatonService.busName) (\(connection.uniqueName))")
        guard network.listener == nil else { return }
        domains.start()
        daemon.startClipboard(environment: ProcessInfo.processInfo.environment)
        do {
            try startNetwork()
        } catch {
            logger.critical("cannot listen for other devices: \(error)")
            exitStatus = 1
            g_main_loop_quit(loop)
        }
    }, lost: {
        if !ownedName && !connection.isClosed {
            // Another batond is the service already (D-Bus activation, the systemd unit and
            // session autostart may each start one): nothing is wrong, and nothing to do.
            logger.notice("\(BatonService.busName) is owned by another batond already; this one exits")
            exitStatus = 0
        } else {
            logger.critical("lost \(BatonService.busName) to another batond, or the bus went away; exiting")
            exitStatus = 1
        }
        g_main_loop_quit(loop)
    })
    for signal in [SIGTERM, SIGINT] {
        GLibSources.onUnixSignal(signal) {
            logger.info("stopping")
            g_main_loop_quit(loop)
        }
    }
    MainQueueBridge.install()
    g_main_loop_run(loop)
    g_main_loop_unref(loop)
    discovery.stop()
    watcher.stop()
    resolvers.stop()
    network.features.clipboard.stop()
    withExtendedLifetime(daemon) {}
    return exitStatus
}
exit(status)
