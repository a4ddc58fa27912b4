import BatonBus
import BatonGLib
import Logging

/// Announces this device and finds other Baton devices on the local network through
/// avahi-daemon's D-Bus API on the system bus: DNS-SD over mDNS, service type `_baton._tcp`.
///
/// The service name is the device id, and the TXT record (``DiscoveryRecord``) holds
/// `id=<device id>`, `v=1` and `n=<the device's name>`: no host name, user or title. The name
/// lets other devices list this one without a link (``PeerNetwork/discovered(_:deviceID:name:)``);
/// a rename withdraws the service and announces it again, so that browsers resolve it anew.
/// Without a system bus or avahi-daemon, one notice is logged and nothing else happens; when
/// avahi-daemon starts later, discovery starts with it.
@MainActor
final class AvahiDiscovery {
    /// The DNS-SD service type of Baton's peer protocol.
    nonisolated static let serviceType = "_baton._tcp"
    /// The peer protocol version in the TXT record.
    nonisolated static let protocolVersion = "1"

    private let logger: Logger
    private var connection: BusConnection?
    private var watch: UInt32?
    private var configuration: Configuration?
    private var session: Session?
    private var notedMissing = false
    /// Where the announcement stands: whether this device is announced, and a line saying so.
    private var announcement: (ok: Bool, detail: String) = (false, "not started")

    /// Where discovery stands, for `baton doctor`: this device announced, and its own record
    /// seen when browsing (as other devices on the network browse).
    var status: DiagnosticCheck {
        let name = "discovery"
        guard announcement.ok else {
            return .fail(name, announcement.detail,
                         fix: "install and start avahi-daemon (sudo apt install avahi-daemon), or name other devices with batond --peer HOST:PORT")
        }
        let seen = session?.instances[configuration?.deviceID ?? ""]?.count ?? 0
        guard seen > 0 else {
            return .fail(name, "\(announcement.detail), but its own record is not seen when browsing \(Self.serviceType): other devices may not find it either",
                         fix: "check that avahi-daemon uses the network's interface (allow-interfaces and deny-interfaces in /etc/avahi/avahi-daemon.conf) and that the firewall passes mDNS (UDP 5353); or name other devices with batond --peer HOST:PORT")
        }
        return .pass(name, "\(announcement.detail); its record is seen when browsing, on \(seen) interface\(seen == 1 ? "" : "s")")
    }

    init(logger: Logger) {
        self.logger = logger
    }

    /// Announces `_baton._tcp` on `port` under `name` and browses for other devices. `found`
    /// runs with a peer's device id, address, port and the name its record gives (`nil` for an
    /// older batond's record, without one) once it is resolved; `lost` with its device id when it
    /// is no longer announced. Calling it again starts over.
    func start(deviceID: String, port: UInt16, name: String,
               found: @escaping @MainActor (_ deviceID: String, _ host: String, _ port: UInt16, _ name: String?) -> Void,
               lost: @escaping @MainActor (String) -> Void) {
        stop()
        configuration = Configuration(deviceID: deviceID, port: port, name: name, found: found, lost: lost)
        let connection: BusConnection
        do {
            connection = try BusConnection.system()
        } catch {
            logger.debug("no system bus: \(error)")
            noteMissing()
            return
        }
        self.connection = connection
        watch = connection.watchName(Avahi.name, autoStart: false, appeared: { [weak self] owner in
            self?.avahiAppeared(owner)
        }, vanished: { [weak self] in
            self?.avahiVanished()
        })
    }

    /// Announces `name` from now on: the service is withdrawn (a goodbye, so browsers forget
    /// it and its record) and announced again after ``renameGap`` seconds with the new record,
    /// which browsers then resolve anew.
    func rename(to name: String) {
        guard var configuration, configuration.name != name else { return }
        configuration.name = name
        self.configuration = configuration
        guard let session, let connection, session.published else { return }
        announceAgain(session, on: connection)
    }

    /// Withdraws the service, and announces it again after ``renameGap``.
    private func announceAgain(_ session: Session, on connection: BusConnection) {
        withdraw(session, on: connection)
        session.renamePending = true
        _ = GLibSources.once(after: Self.renameGap) { [weak self, weak session] in
            guard let self, let session, self.session === session else { return }
            session.renamePending = false
            Task { [weak self] in await self?.publish(session, on: connection) }
        }
    }

    /// Seconds between the goodbye of a rename and the new announcement: more than the second
    /// a goodbye's record stays cached (RFC 6762 §10.1), so browsers see the service go and
    /// come back, and resolve its new record.
    static let renameGap = 2.0

    /// Withdraws the announcement and stops browsing, without calling `lost`.
    func stop() {
        if let watch, let connection {
            connection.unwatchName(watch)
        }
        watch = nil
        endSession(freeObjects: true, reportLost: false)
        configuration = nil
        connection = nil
    }

    // MARK: avahi-daemon comes and goes

    private func noteMissing() {
        announcement = (false, "no avahi-daemon on the system bus: other devices on this network do not find this one")
        guard !notedMissing else { return }
        notedMissing = true
        logger.notice("no avahi-daemon: discovery through DNS-SD is off; static peers still work")
    }

    private func avahiAppeared(_ owner: String) {
        guard let connection, configuration != nil else { return }
        endSession(freeObjects: true, reportLost: true)
        notedMissing = false
        announcement = (false, "avahi-daemon is there; this device is not announced yet")
        let session = Session(owner: owner)
        self.session = session
        // Subscribed before the browser exists, so no early ItemNew is missed; avahi sends a
        // browser's signals to its client only, and they carry the service type.
        session.subscriptions = [
            connection.subscribe(sender: owner, interface: Avahi.server, member: "StateChanged", path: "/") {
                [weak self, weak session] _, arguments in
                guard let self, let session, self.session === session else { return }
                self.serverStateChanged(arguments, in: session)
            },
            connection.subscribe(sender: owner, interface: Avahi.entryGroup, member: "StateChanged", path: nil) {
                [weak self, weak session] _, arguments in
                guard let self, let session, self.session === session else { return }
                self.entryGroupStateChanged(arguments)
            },
            connection.subscribe(sender: owner, interface: Avahi.serviceBrowser, member: "ItemNew", path: nil) {
                [weak self, weak session] _, arguments in
                guard let self, let session, self.session === session else { return }
                self.itemNew(arguments, in: session)
            },
            connection.subscribe(sender: owner, interface: Avahi.serviceBrowser, member: "ItemRemove", path: nil) {
                [weak self, weak session] _, arguments in
                guard let self, let session, self.session === session else { return }
                self.itemRemove(arguments, in: session)
            },
            connection.subscribe(sender: owner, interface: Avahi.serviceBrowser, member: "Failure", path: nil) {
                [weak self, weak session] _, arguments in
                guard let self, let session, self.session === session else { return }
                let reason = arguments.at(0)?.string ?? "unknown error"
                self.logger.notice("browsing for \(Self.serviceType) failed: \(reason)")
            },
        ]
        Task { [weak self] in await self?.begin(session, on: connection) }
    }

    private func avahiVanished() {
        endSession(freeObjects: false, reportLost: true)
        noteMissing()
    }

    private func begin(_ session: Session, on connection: BusConnection) async {
        do {
            let reply = try await connection.call(
                Avahi.name, path: "/", interface: Avahi.server, method: "ServiceBrowserNew",
                arguments: [.int32(Avahi.interfaceUnspecified), .int32(Avahi.protocolUnspecified),
                            .string(Self.serviceType), .string(""), .uint32(0)],
                timeout: Avahi.timeout)
            guard let path = reply.at(0)?.string else {
                throw BusError.failed("ServiceBrowserNew returned no object path")
            }
            guard self.session === session else {
                free(path, interface: Avahi.serviceBrowser, on: connection)
                return
            }
            session.browser = path
            let state = try await connection.call(Avahi.name, path: "/", interface: Avahi.server, method: "GetState",
                                                  timeout: Avahi.timeout)
            guard self.session === session, state.at(0)?.integer == Avahi.serverRunning else { return }
            session.serverRunning = true
            await publish(session, on: connection)
        } catch {
            logger.notice("avahi-daemon refused to browse for \(Self.serviceType): \(error)")
        }
    }

    private func endSession(freeObjects: Bool, reportLost: Bool) {
        guard let session else { return }
        self.session = nil
        if let connection {
            for subscription in session.subscriptions {
                connection.unsubscribe(subscription)
            }
            if freeObjects {
                if let browser = session.browser { free(browser, interface: Avahi.serviceBrowser, on: connection) }
                if let group = session.entryGroup { free(group, interface: Avahi.entryGroup, on: connection) }
            }
        }
        guard reportLost, let lost = configuration?.lost else { return }
        for deviceID in session.peers.sorted() {
            lost(deviceID)
        }
    }

    private func free(_ path: String, interface: String, on connection: BusConnection) {
        Task {
            _ = try? await connection.call(Avahi.name, path: path, interface: interface, method: "Free",
                                           timeout: Avahi.timeout)
        }
    }

    // MARK: Announcing

    private func serverStateChanged(_ arguments: [BusValue], in session: Session) {
        guard let state = arguments.at(0)?.integer, let connection else { return }
        session.serverRunning = state == Avahi.serverRunning
        if session.serverRunning {
            Task { [weak self] in await self?.publish(session, on: connection) }
        } else if state == Avahi.serverRegistering || state == Avahi.serverCollision {
            withdraw(session, on: connection)
        }
    }

    /// Adds the service to the session's entry group and commits it, once the server runs.
    private func publish(_ session: Session, on connection: BusConnection) async {
        guard let configuration, session.serverRunning, !session.published, !session.publishing,
              !session.renamePending else { return }
        session.publishing = true
        defer { session.publishing = false }
        do {
            let group: String
            if let existing = session.entryGroup {
                _ = try await connection.call(Avahi.name, path: existing, interface: Avahi.entryGroup, method: "Reset",
                                              timeout: Avahi.timeout)
                group = existing
            } else {
                let reply = try await connection.call(Avahi.name, path: "/", interface: Avahi.server,
                                                      method: "EntryGroupNew", timeout: Avahi.timeout)
                guard let path = reply.at(0)?.string else {
                    throw BusError.failed("EntryGroupNew returned no object path")
                }
                guard self.session === session else {
                    free(path, interface: Avahi.entryGroup, on: connection)
                    return
                }
                session.entryGroup = path
                group = path
            }
            let txt = DiscoveryRecord(deviceID: configuration.deviceID, version: Self.protocolVersion,
                                      name: configuration.name).entries
            _ = try await connection.call(
                Avahi.name, path: group, interface: Avahi.entryGroup, method: "AddService",
                arguments: [.int32(Avahi.interfaceUnspecified), .int32(Avahi.protocolUnspecified), .uint32(0),
                            .string(configuration.deviceID), .string(Self.serviceType), .string(""), .string(""),
                            .uint16(configuration.port), .byteArrays(txt)],
                timeout: Avahi.timeout)
            _ = try await connection.call(Avahi.name, path: group, interface: Avahi.entryGroup, method: "Commit",
                                          timeout: Avahi.timeout)
            guard self.session === session else { return }
            session.published = true
            if !session.serverRunning {
                withdraw(session, on: connection)
            } else if self.configuration?.name != configuration.name {
                // Renamed while this announcement was under way.
                announceAgain(session, on: connection)
            }
        } catch {
            logger.notice("avahi-daemon refused to announce \(Self.serviceType): \(error)")
        }
    }

    /// Empties the entry group while the server renames its host: the service is added
    /// again, with the new host name, when the server runs again.
    private func withdraw(_ session: Session, on connection: BusConnection) {
        guard session.published, let group = session.entryGroup else { return }
        session.published = false
        Task {
            _ = try? await connection.call(Avahi.name, path: group, interface: Avahi.entryGroup, method: "Reset",
                                           timeout: Avahi.timeout)
        }
    }

    private func entryGroupStateChanged(_ arguments: [BusValue]) {
        guard let state = arguments.at(0)?.integer, let configuration else { return }
        switch state {
        case Avahi.entryGroupEstablished:
            announcement = (true, "announced as \(configuration.deviceID) (\(Self.serviceType), port \(configuration.port))")
            logger.info("announced as \(configuration.deviceID) (\(Self.serviceType), port \(configuration.port))")
        case Avahi.entryGroupCollision:
            announcement = (false, "another device announces this device's id \(configuration.deviceID); this one is not announced")
            logger.notice("another device announces \(configuration.deviceID); this one is not announced")
        case Avahi.entryGroupFailure:
            announcement = (false, "avahi-daemon could not announce this device: \(arguments.at(1)?.string ?? "unknown error")")
            logger.notice("announcing \(Self.serviceType) failed: \(arguments.at(1)?.string ?? "unknown error")")
        default:
            break
        }
    }

    // MARK: Browsing

    private func itemNew(_ arguments: [BusValue], in session: Session) {
        guard let item = BrowsedItem(arguments), let configuration, let connection else { return }
        if item.name == configuration.deviceID {
            // This device's own record, as the network shows it (for the doctor).
            session.instances[item.name, default: []].insert(item.instance)
            return
        }
        guard item.flags & Avahi.lookupResultOurOwn == 0, Self.isDeviceID(item.name) else { return }
        session.instances[item.name, default: []].insert(item.instance)
        guard !session.peers.contains(item.name), !session.resolving.contains(item.name) else { return }
        session.resolving.insert(item.name)
        Task { [weak self] in await self?.resolve(item, in: session, on: connection) }
    }

    private func itemRemove(_ arguments: [BusValue], in session: Session) {
        guard let item = BrowsedItem(arguments), var instances = session.instances[item.name] else { return }
        instances.remove(item.instance)
        guard instances.isEmpty else {
            session.instances[item.name] = instances
            return
        }
        session.instances[item.name] = nil
        if let deviceID = session.peers.remove(item.name) {
            logger.debug("peer \(deviceID) is no longer announced")
            configuration?.lost(deviceID)
        }
    }

    /// Resolves an announced peer to an address and reports it: over mDNS on IPv4 to an IPv4
    /// address first (avahi-daemon answers A queries on IPv4 only), else to an IPv6 address.
    private func resolve(_ item: BrowsedItem, in session: Session, on connection: BusConnection) async {
        defer { session.resolving.remove(item.name) }
        var resolved: ResolvedService?
        let attempts = [(Avahi.protocolIPv4, Avahi.protocolIPv4), (item.instance.ipProtocol, Avahi.protocolIPv6)]
        for (transport, addressProtocol) in attempts where resolved == nil {
            do {
                let reply = try await connection.call(
                    Avahi.name, path: "/", interface: Avahi.server, method: "ResolveService",
                    arguments: [.int32(item.instance.interface), .int32(transport), .string(item.name),
                                .string(item.type), .string(item.domain), .int32(addressProtocol), .uint32(0)],
                    timeout: Avahi.resolveTimeout)
                resolved = ResolvedService(reply)
            } catch {
                let family = addressProtocol == Avahi.protocolIPv4 ? "IPv4" : "IPv6"
                logger.debug("resolving \(item.name) to an \(family) address failed: \(error)")
            }
        }
        guard self.session === session, session.instances[item.name] != nil, let configuration else { return }
        guard let resolved, resolved.txt.deviceID == item.name, resolved.flags & Avahi.lookupResultOurOwn == 0 else {
            logger.debug("ignoring \(item.name): not resolved, or its TXT record does not match")
            return
        }
        session.peers.insert(item.name)
        logger.debug("found peer \(item.name) at \(resolved.host) port \(resolved.port)\(resolved.txt.name == nil ? ", without a name" : "")")
        configuration.found(item.name, resolved.host, resolved.port, resolved.txt.name)
    }

    /// Whether `name` has the form of a device id: 32 lowercase hex digits.
    static func isDeviceID(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// What ``AvahiDiscovery/start(deviceID:port:name:found:lost:)`` was given, and the name since.
private struct Configuration {
    let deviceID: String
    let port: UInt16
    var name: String
    let found: @MainActor (String, String, UInt16, String?) -> Void
    let lost: @MainActor (String) -> Void
}

/// Where a service was seen: avahi reports it once per network interface and IP protocol.
private struct Instance: Hashable {
    let interface: Int32
    let ipProtocol: Int32
}

/// What is known while one avahi-daemon process owns its bus name.
@MainActor
private final class Session {
    let owner: String
    var subscriptions: [UInt32] = []
    var browser: String?
    var entryGroup: String?
    var serverRunning = false
    var published = false
    var publishing = false
    /// A rename withdrew the service, which is announced again after ``AvahiDiscovery/renameGap``.
    var renamePending = false
    /// Where each service name is seen.
    var instances: [String: Set<Instance>] = [:]
    /// Service names being resolved.
    var resolving: Set<String> = []
    /// Device ids (the service names) reported through `found`.
    var peers: Set<String> = []

    init(owner: String) {
        self.owner = owner
    }
}

/// The arguments of a ServiceBrowser's ItemNew or ItemRemove: `(iisssu)`.
private struct BrowsedItem {
    /// The network interface and protocol it was seen on.
    let instance: Instance
    /// The service's name, type (`_baton._tcp`) and domain (`local`).
    let name: String
    let type: String
    let domain: String
    /// Avahi's lookup result flags (`AVAHI_LOOKUP_RESULT_LOCAL`…).
    let flags: UInt32

    init?(_ arguments: [BusValue]) {
        guard case .int32(let interface)? = arguments.at(0), case .int32(let proto)? = arguments.at(1),
              let name = arguments.at(2)?.string, let type = arguments.at(3)?.string,
              type == AvahiDiscovery.serviceType,
              let domain = arguments.at(4)?.string, case .uint32(let flags)? = arguments.at(5)
        else { return nil }
        instance = Instance(interface: interface, ipProtocol: proto)
        self.name = name
        self.type = type
        self.domain = domain
        self.flags = flags
    }
}

/// The reply of ResolveService: `(iissssisqaayu)`.
private struct ResolvedService {
    /// The address, with the interface index as zone for an IPv6 link-local one.
    let host: String
    let port: UInt16
    /// What its TXT record says.
    let txt: DiscoveryRecord
    let flags: UInt32

    init?(_ reply: [BusValue]) {
        guard case .int32(let interface)? = reply.at(0), case .int32(let addressProtocol)? = reply.at(6),
              let address = reply.at(7)?.string, !address.isEmpty, case .uint16(let port)? = reply.at(8), port != 0,
              let entries = reply.at(9)?.byteArrays, case .uint32(let flags)? = reply.at(10)
        else { return nil }
        let isLinkLocal = addressProtocol == Avahi.protocolIPv6 && address.lowercased().hasPrefix("fe80:")
        host = isLinkLocal ? "\(address)%\(interface)" : address
        self.port = port
        self.flags = flags
        txt = DiscoveryRecord(entries: entries)
    }
}
