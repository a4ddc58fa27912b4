import BatonBus

/// Reach-back's D-Bus half: its rows of `Diagnose` (``Daemon/diagnosis()``), one per paired
/// device.
extension Daemon {
    /// One check per paired device: linked, and, when this device dialed the link, able to
    /// dial this device back (asked of all the linked devices at once).
    func pairedDeviceChecks() async -> [DiagnosticCheck] {
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
}
