import Foundation

/// An office LAN for DNS-SD: `count` network namespaces on one bridge (10.78.0.1 … 10.78.0.N,
/// one /24), each with a private system bus and its own avahi-daemon, made by
/// `Tests/Fixtures/office-netns-up.sh` (needs root) and removed, with anything still running
/// inside, by ``remove()``.
public final class OfficeNetwork {
    public let count: Int
    private let state: URL
    private var removed = false

    private static let fixtures = SourceTree.path("Tests/Fixtures")

    /// Why the network cannot be made here, or nil.
    public static var missingRequirement: String? {
        guard getuid() == 0 else { return "network namespaces need root" }
        for tool in ["/usr/sbin/ip", "/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/bin/gdbus"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }

    /// Makes the namespaces and starts their buses and avahi-daemons, each running.
    public init(count: Int) throws {
        self.count = count
        state = FileManager.default.temporaryDirectory.appendingPathComponent("baton-office-\(UUID().uuidString)")
        let up = try Self.run(Self.fixtures.appendingPathComponent("office-netns-up.sh").path, ["\(count)", state.path])
        guard up.status == 0 else {
            remove()
            throw FixtureError("office-netns-up.sh failed: \(up.output.suffix(600))")
        }
    }

    /// The namespace of device `number` (1 … ``count``).
    public func namespace(_ number: Int) -> String { "baton-o\(number)" }

    /// The address of device `number`.
    public func address(_ number: Int) -> String { "10.78.0.\(number)" }

    /// The system bus of device `number`'s namespace, for `DBUS_SYSTEM_BUS_ADDRESS`.
    public func systemBus(_ number: Int) -> String {
        "unix:path=\(state.appendingPathComponent("\(number)/bus.sock").path)"
    }

    /// Stops the daemons and removes the namespaces.
    public func remove() {
        guard !removed else { return }
        removed = true
        _ = try? Self.run(Self.fixtures.appendingPathComponent("office-netns-down.sh").path, [state.path])
    }

    deinit {
        remove()
    }

    private static func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try FixtureScript.run(script, arguments, timeout: 90)
    }
}
