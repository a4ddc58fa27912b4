import Foundation

/// The IP addresses this device has now, on any interface, as text in the form GLib writes
/// them (`10.0.0.2`, `fe80::1`): to tell a link whose local address is gone after a network
/// change (``PeerNetwork/recheckLinks(because:)``).
enum LocalAddresses {
    /// The addresses of all interfaces, up or not; `nil` when the system does not say.
    static func current() -> Set<String>? {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return nil }
        defer { freeifaddrs(first) }
        var addresses: Set<String> = []
        var entry = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr else { continue }
            if let text = text(of: address) { addresses.insert(text) }
        }
        return addresses
    }

    /// `address`, an IPv4 or IPv6 socket address, as text; `nil` for other families.
    private static func text(of address: UnsafeMutablePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &inet, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        case AF_INET6:
            var inet6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &inet6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `host`, a link's local address as ``BatonPeer/PeerLink/localHost`` gives it, is
    /// among `addresses`: an IPv4 address a dual-stack socket shows mapped (`::ffff:10.0.0.2`)
    /// counts as itself. An empty host (not known) and a loopback address (all of 127.0.0.0/8
    /// is this device's, though only 127.0.0.1 is listed) count as present.
    static func contains(_ host: String, in addresses: Set<String>) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("::ffff:"), host.contains(".") { host = String(host.dropFirst("::ffff:".count)) }
        guard !host.isEmpty, !host.hasPrefix("127."), host != "::1" else { return true }
        return addresses.contains(host)
    }
}
