import BatonPeer
import Foundation

/// What the network does when its links may have gone stale: after a resume or a network
/// change (``NetworkWatcher``), and when a paired device turns up at another address.
///
/// A link whose local address this device no longer has is closed at once; every other link
/// is pinged and closed when nothing comes back within ``recheckDeadline`` (a peer whose
/// machine dropped the link while this one slept answers at once, with a reset). Paired
/// devices and static peers are dialed at once, their backoff started over, and so is a paired
/// device whose link went stale in the re-check: so a device back on the network lists the
/// other's offers within a second or two, not after the backoff of the failed dials.
extension PeerNetwork {
    /// Seconds a linked device has to answer the ping of a re-check.
    static let recheckDeadline = 2.0

    /// Checks every link and dials the paired devices and static peers at once; `reason`
    /// says why, for the log.
    func recheckLinks(because reason: String) {
        let addresses = LocalAddresses.current()
        beginRecheck()
        var closedCount = 0
        var checkedCount = 0
        for device in Array(devices.values) {
            guard let link = device.link, link.isOpen, !link.isClosing else { continue }
            if let addresses, !LocalAddresses.contains(link.localHost, in: addresses) {
                drop(link, "this device no longer has the address \(link.localHost)")
                closedCount += 1
            } else {
                link.probe(within: Self.recheckDeadline)
                checkedCount += 1
            }
        }
        plan.dialSoon { [paired] _, target in
            target.sources.contains(.configured) || target.deviceID.map { paired.devices[$0] != nil } == true
        }
        logger.info("\(reason): \(closedCount) link\(closedCount == 1 ? "" : "s") closed, \(checkedCount) checked; dialing paired devices and static peers")
        dialDue()
    }

    /// DNS-SD gives a paired device's address anew (``PairedDeviceResolvers``): the address it
    /// gave before, if any, is no longer dialed for DNS-SD, and the new one is, first
    /// (``followIfMoved(_:deviceID:)``).
    func rediscovered(_ address: String, deviceID: String, replacing previous: String?) {
        guard deviceID != identity.deviceID else { return }
        if let previous, previous != address { plan.remove(previous, source: .discovered) }
        if let listed = devices[deviceID]?.discovered { devices[deviceID]?.discovered = (listed.name, address) }
        plan.add(address, deviceID: deviceID, source: .discovered)
        followIfMoved(address, deviceID: deviceID)
        dialDue()
    }

    /// Checks one link that may reach an address its device left: pinged, and closed when
    /// nothing comes back within ``recheckDeadline``, its device dialed again at once.
    func recheck(_ link: PeerLink) {
        beginRecheck()
        link.probe(within: Self.recheckDeadline)
    }

    /// A paired device dialed this one from another address than its link's (it refused the
    /// newer link for the older, as both ends choose alike): the device may have moved, which
    /// its hello, over a link showing the pinned certificate, says. It is dialed at `address`
    /// from now on, not where it was, and the older link is checked.
    func movedAway(_ device: PeerDevice, to address: String?, staleLink: PeerLink) {
        if let address, paired.devices[device.id]?.address != address {
            log(.info, from: device.id, "\(deviceName(device.id)) dialed from \(address), its link is with \(staleLink.remoteAddress): checking that link")
            plan.set([address], deviceID: device.id, source: .paired)
            do {
                try paired.update(device.id, name: paired.devices[device.id]?.name ?? "", address: address)
            } catch {
                logger.error("cannot save the paired devices: \(error)")
            }
        }
        recheck(staleLink)
    }

    /// Starts a re-check: links older than now that close within the deadline (and a second
    /// more) have their devices dialed at once.
    private func beginRecheck() {
        let now = Date()
        recheck = (startedAt: now, until: now.addingTimeInterval(Self.recheckDeadline + 1))
    }
}
