import CGLib

/// The closures of one name owned or watched on the bus.
private final class NameHandlers {
    let appeared: @MainActor (String) -> Void
    let vanished: @MainActor () -> Void

    init(appeared: @escaping @MainActor (String) -> Void, vanished: @escaping @MainActor () -> Void) {
        self.appeared = appeared
        self.vanished = vanished
    }

    static let release: GDestroyNotify = { data in
        guard let data else { return }
        Unmanaged<NameHandlers>.fromOpaque(data).release()
    }

    static func from(_ data: gpointer?) -> NameHandlers? {
        data.map { Unmanaged<NameHandlers>.fromOpaque($0).takeUnretainedValue() }
    }
}

extension BusConnection {
    /// Asks the bus for the well-known `name`, without queueing behind another owner or
    /// letting another take it. `acquired` runs once it is ours; `lost` when another process
    /// owns it or the bus goes away. Returns an id for ``releaseName(_:)``.
    @discardableResult
    public func ownName(_ name: String, acquired: @escaping @MainActor () -> Void,
                        lost: @escaping @MainActor () -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(NameHandlers(appeared: { _ in acquired() }, vanished: lost)).toOpaque()
        return g_bus_own_name_on_connection(raw, name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE, { _, _, data in
            guard let handlers = NameHandlers.from(data) else { return }
            MainActor.assumeIsolated { handlers.appeared("") }
        }, { _, _, data in
            guard let handlers = NameHandlers.from(data) else { return }
            MainActor.assumeIsolated { handlers.vanished() }
        }, box, NameHandlers.release)
    }

    /// Gives up a name owned through ``ownName(_:acquired:lost:)``.
    public func releaseName(_ id: UInt32) {
        g_bus_unown_name(id)
    }

    /// Watches `name`: `appeared` runs with its owner's unique name whenever someone owns it,
    /// `vanished` when no one does (also at once when no one does now). With `autoStart`,
    /// the bus is asked to start the name's D-Bus-activatable service first. Returns an id
    /// for ``unwatchName(_:)``.
    @discardableResult
    public func watchName(_ name: String, autoStart: Bool,
                          appeared: @escaping @MainActor (_ owner: String) -> Void,
                          vanished: @escaping @MainActor () -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(NameHandlers(appeared: appeared, vanished: vanished)).toOpaque()
        let flags = autoStart ? G_BUS_NAME_WATCHER_FLAGS_AUTO_START : G_BUS_NAME_WATCHER_FLAGS_NONE
        return g_bus_watch_name_on_connection(raw, name, flags, { _, _, owner, data in
            guard let handlers = NameHandlers.from(data) else { return }
            let ownerName = owner.map { String(cString: $0) } ?? ""
            MainActor.assumeIsolated { handlers.appeared(ownerName) }
        }, { _, _, data in
            guard let handlers = NameHandlers.from(data) else { return }
            MainActor.assumeIsolated { handlers.vanished() }
        }, box, NameHandlers.release)
    }

    /// Stops a watch made by ``watchName(_:autoStart:appeared:vanished:)``.
    public func unwatchName(_ id: UInt32) {
        g_bus_unwatch_name(id)
    }
}
