import Baton
import BatonBus
import BatonGLib
import Foundation

/// The records batond answers `GetStatus`, `ListActivities` and `ListApps` with.
extension Daemon {
    /// The rows of ``methods`` that answer with records: `GetStatus`, `ListActivities`,
    /// `ListApps` and `ListDevices`.
    static var recordMethods: [DaemonMethod] {
        [
            DaemonMethod("GetStatus") { daemon, call, _ in call.reply([.dictionary(daemon.status)]) },
            DaemonMethod("ListActivities") { daemon, call, _ in call.reply([.dictionaries(daemon.activityRecords)]) },
            DaemonMethod("ListApps") { daemon, call, _ in call.reply([.dictionaries(daemon.appRecords)]) },
            DaemonMethod("ListDevices") { daemon, call, _ in call.reply([.dictionaries(daemon.deviceRecords)]) },
        ]
    }

    var status: [String: BusValue] {
        var status: [String: BusValue] = [
            "version": .string(BatonService.version), "interface": .string(BatonService.daemonInterface),
            "pid": .int64(Int64(getpid())), "apps": .uint32(UInt32(registry.apps.count)),
            "activities": .uint32(UInt32(activityRecords.count)),
            "device-id": .string(network.identity.deviceID), "device-name": .string(network.name),
            "paired-devices": .uint32(UInt32(network.paired.devices.count)),
            "streams": .uint32(UInt32(network.features.streams.openCount)),
        ]
        if let listener = network.listener { status["listen"] = .string(listener.address) }
        if let tailnet, tailnet.state != nil {
            status["tailnet"] = .strings(tailnet.peers.map { "\($0.name) (\($0.address))" })
        }
        status["phones"] = .strings(phones.all.map { "\($0.name) (\($0.via)\($0.isReachable ? "" : ", out of reach"))" })
        // Resources held, for soak tests and leak hunting: see MainContextSources.
        status["glib-sources"] = .uint32(UInt32(clamping: MainContextSources.count()))
        if let descriptors = OpenFileDescriptors.count() { status["open-fds"] = .uint32(UInt32(clamping: descriptors)) }
        if let (app, published) = registry.current {
            status["current"] = .dictionary(Self.record(app, published))
        }
        if let offeredRecord { status["offered"] = .dictionary(offeredRecord) }
        status["clipboard"] = .string(clipboardStatus)
        return status
    }

    /// Local current activities that are eligible and unexpired, then offers.
    var activityRecords: [[String: BusValue]] {
        let local = registry.offerable.map { Self.record($0.0, $0.1) }
        let offered = offers.current.filter(settingsStore.policy.allows).map { offer in
            var record = Self.summaryRecord(offer.summary)
            record["id"] = .string(offer.id)
            record["origin"] = .string("offer")
            record["device"] = .string(offer.device)
            if let deviceID = offer.peerDeviceID { record["device-id"] = .string(deviceID) }
            if let appID = offer.appID { record["app-id"] = .string(appID) }
            if let teamID = offer.teamID { record["team-id"] = .string(teamID) }
            return record
        }
        return local + recentDocumentRecords + offered
    }

    var appRecords: [[String: BusValue]] {
        let running = registry.apps.values.sorted { first, second in
            first.verifiedActivityTypes.isEmpty != second.verifiedActivityTypes.isEmpty
                ? !first.verifiedActivityTypes.isEmpty : first.isPreferred(over: second)
        }
        var records: [[String: BusValue]] = running.map { app in
            var record: [String: BusValue] = [
                "app-id": .string(app.appID), "team-id": .string(app.teamID),
                "activity-types": .strings(app.activityTypes.sorted()), "running": .bool(true),
                "bus-name": .string(app.busName), "pid": .int64(Int64(app.pid)), "verified": .bool(app.isVerified),
                "verified-activity-types": .strings(app.verifiedActivityTypes.sorted()),
                "verification": .string(app.verification), "verified-state": .string(app.verifiedState),
                "registered-at": .double(app.registeredAt.timeIntervalSince1970),
            ]
            if let active = app.lastActiveAt { record["last-active"] = .double(active.timeIntervalSince1970) }
            return record
        }
        let installedApps = InstalledApps.all()
        for installed in installedApps {
            var record: [String: BusValue] = [
                "app-id": .string(installed.appID), "team-id": .string(installed.teamID),
                "activity-types": .strings(installed.activityTypes.sorted()), "running": .bool(false),
                "desktop-entry": .string(installed.desktopFile),
                "dbus-activatable": .bool(installed.isDBusActivatable),
            ]
            if let icon = installed.icon { record["icon"] = .string(icon) }
            if let name = installed.name { record["name"] = .string(name) }
            if let continues = installed.continues { record["continues"] = .string(continues) }
            if installed.isHelper { record["helper"] = .bool(true) }
            if !installed.documentTypes.pairs.isEmpty { record["document-types"] = .strings(installed.documentTypes.pairs) }
            if !installed.domains.isEmpty { record["domains"] = .strings(installed.domains.map(\.description)) }
            records.append(record)
        }
        records += recentListAppRecords(besides: Set(records.compactMap { $0["app-id"]?.string }))
        // A running app's icon and name are its entry's.
        let entries = Dictionary(installedApps.map { ($0.appID, $0) }, uniquingKeysWith: { first, _ in first })
        return records.map { record in
            guard record["running"]?.bool == true, let entry = record["app-id"]?.string.flatMap({ entries[$0] }) else { return record }
            var record = record
            if let icon = entry.icon { record["icon"] = .string(icon) }
            if let name = entry.name { record["name"] = .string(name) }
            if let continues = entry.continues { record["continues"] = .string(continues) }
            if entry.isHelper { record["helper"] = .bool(true) }
            if !entry.documentTypes.pairs.isEmpty { record["document-types"] = .strings(entry.documentTypes.pairs) }
            return record
        }
    }

    private static func record(_ app: RegisteredApp, _ published: PublishedActivity) -> [String: BusValue] {
        var record = summaryRecord(published.summary)
        record["id"] = .string(published.listingID)
        record["origin"] = .string("local")
        record["device"] = .string("this device")
        record["app-id"] = .string(app.appID)
        record["team-id"] = .string(app.teamID)
        return record
    }

    private static func summaryRecord(_ summary: ActivitySummary) -> [String: BusValue] {
        var record = summary.record
        record["title"] = .string(summary.title ?? "")
        return record
    }
}

/// The records of `ListDevices`.
extension Daemon {
    /// Baton's devices (kind `computer`), then the phones of KDE Connect-family services.
    var deviceRecords: [[String: BusValue]] {
        peerDeviceRecords + phoneRecords
    }

    private var peerDeviceRecords: [[String: BusValue]] {
        network.knownDevices.map { id in
            var record: [String: BusValue] = [
                "id": .string(id), "name": .string(network.deviceName(id)), "kind": .string("computer"),
                "paired": .bool(network.isPaired(id)), "connected": .bool(network.isLinked(id)),
            ]
            if let address = network.address(of: id) {
                record["address"] = .string(address)
            }
            let device = network.devices[id]
            if let link = device?.link, link.isRelayed {
                record["relay"] = .string(link.remoteAddress)
            }
            if let announced = device?.announced {
                record["protocol"] = .uint32(announced.version)
                record["capabilities"] = .strings(announced.capabilities.sorted())
            }
            if let pairing = device?.pairing {
                if let codes = pairing.codes { record["pairing-code"] = .string(codes.shown) }
                record["confirmed-here"] = .bool(pairing.confirmedHere)
            }
            return record
        }
    }
}
