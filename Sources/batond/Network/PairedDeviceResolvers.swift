import BatonBus
import BatonGLib
import BatonPeer
import Logging

/// Follows where DNS-SD says each paired device is, so that one that moved to another network
/// is dialed at its new address even when it cannot reach this device's.
///
/// ``AvahiDiscovery`` resolves a device once, when its service appears; a device that moves
/// while its service stays announced (its avahi-daemon announces the new address of its host,
/// the service itself unchanged) is not found again there. Here each paired device has a
/// long-lived avahi `ServiceResolver` (over IPv4, on any interface), which says `Found` again
/// whenever the device's records change; each new IPv4 address goes to ``onFound``, which dials
/// it (``PeerNetwork/rediscovered(_:deviceID:replacing:)``). The resolvers cost nothing while
/// nothing changes: avahi-daemon answers from what the network announces. Without
/// avahi-daemon, nothing happens.
@MainActor
final class PairedDeviceResolvers {
    /// Runs with a paired device's id, its address (`HOST:PORT`) and the one reported before,
    /// each time DNS-SD gives a new one.
    var onFound: (_ deviceID: String, _ address: String, _ previous: String?) -> Void = { _, _, _ in }

    private let logger: Logger
    private let pairedDevices: () -> Set<String>
    private var connection: BusConnection?
    private var watch: UInt32?
    private var owner: String?
    private var subscription: UInt32?
    /// Each resolver's object path by device id (`nil` while avahi-daemon makes it), and the
    /// device of each path.
    private var resolvers: [String: String?] = [:]
    private var devicesByPath: [String: String] = [:]
    /// The last address reported of each device.
    private var reported: [String: String] = [:]
    /// The last `Found` of each resolver whose path is not known yet: avahi-daemon may say
    /// `Found` (from its cache) before it answers `ServiceResolverNew`.
    private var early: [String: [BusValue]] = [:]

    /// `pairedDevices` gives the ids of the paired devices now.
    init(logger: Logger, pairedDevices: @escaping () -> Set<String>) {
        self.logger = logger
        self.pairedDevices = pairedDevices
    }

    /// Starts following the paired devices while avahi-daemon runs on the system bus.
    func start() {
        guard let connection = try? BusConnection.system() else { return }
        self.connection = connection
        watch = connection.watchName(Avahi.name, autoStart: false, appeared: { [weak self] owner in
            self?.avahiAppeared(owner)
        }, vanished: { [weak self] in
            self?.end()
        })
    }

    /// Stops following, freeing the resolvers.
    func stop() {
        if let watch, let connection { connection.unwatchName(watch) }
        watch = nil
        end()
        connection = nil
    }

    /// Makes a resolver for each paired device that has none, and frees those of devices no
    /// longer paired: after a pairing or an unpairing.
    func refresh() {
        guard let connection, owner != nil else { return }
        let paired = pairedDevices()
        for (deviceID, path) in resolvers where !paired.contains(deviceID) {
            resolvers[deviceID] = nil
            reported[deviceID] = nil
            if let path {
                devicesByPath[path] = nil
                free(path, on: connection)
            }
        }
        for deviceID in paired where resolvers[deviceID] == nil && AvahiDiscovery.isDeviceID(deviceID) {
            resolvers[deviceID] = .some(nil)
            Task { [weak self] in await self?.makeResolver(for: deviceID, on: connection) }
        }
    }

    private func avahiAppeared(_ owner: String) {
        end()
        guard let connection else { return }
        self.owner = owner
        // Subscribed before any resolver exists, so that no early Found is missed.
        subscription = connection.subscribeWithPath(sender: owner, interface: Avahi.serviceResolver, member: "Found",
                                                    path: nil) { [weak self] _, path, arguments in
            self?.found(at: path, arguments)
        }
        refresh()
    }

    private func makeResolver(for deviceID: String, on connection: BusConnection) async {
        do {
            let reply = try await connection.call(
                Avahi.name, path: "/", interface: Avahi.server, method: "ServiceResolverNew",
                arguments: [.int32(Avahi.interfaceUnspecified), .int32(Avahi.protocolIPv4), .string(deviceID),
                            .string(AvahiDiscovery.serviceType), .string("local"), .int32(Avahi.protocolIPv4), .uint32(0)],
                timeout: 10)
            guard let path = reply.at(0)?.string else { return }
            guard self.connection === connection, resolvers[deviceID] == .some(nil) else {
                return free(path, on: connection)
            }
            resolvers[deviceID] = path
            devicesByPath[path] = deviceID
            logger.debug("following paired device \(deviceID) through DNS-SD")
            if let arguments = early.removeValue(forKey: path) { found(at: path, arguments) }
        } catch {
            logger.debug("avahi-daemon made no resolver for \(deviceID): \(error)")
            if resolvers[deviceID] == .some(nil) { resolvers[deviceID] = nil }
        }
    }

    /// A resolver's `Found(iissssisqaayu)`: the address and port are the 8th and 9th.
    private func found(at path: String, _ arguments: [BusValue]) {
        guard let deviceID = devicesByPath[path] else {
            if resolvers.values.contains(where: { $0 == nil }), early.count < 64 { early[path] = arguments }
            return
        }
        guard arguments.at(2)?.string == deviceID,
              let host = arguments.at(7)?.string, !host.isEmpty, case .uint16(let port)? = arguments.at(8), port != 0
        else { return }
        let address = PeerAddress.format(host: host, port: UInt32(port))
        let previous = reported[deviceID]
        guard previous != address else { return }
        reported[deviceID] = address
        logger.debug("DNS-SD says paired device \(deviceID) is at \(address)")
        onFound(deviceID, address, previous)
    }

    private func end() {
        if let subscription, let connection { connection.unsubscribe(subscription) }
        subscription = nil
        if let connection, owner != nil {
            for path in resolvers.values.compactMap({ $0 }) { free(path, on: connection) }
        }
        owner = nil
        resolvers = [:]
        devicesByPath = [:]
        early = [:]
        reported = [:]
    }

    private func free(_ path: String, on connection: BusConnection) {
        Task {
            _ = try? await connection.call(Avahi.name, path: path, interface: Avahi.serviceResolver, method: "Free",
                                           timeout: 10)
        }
    }
}
