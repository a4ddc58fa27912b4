import Foundation

/// Where a device joins the session a relay invites it to: on the relay itself, never
/// elsewhere. An invitation names an address and a port; a relay that could name any would
/// have every device joined to it connect wherever it chose, a port prober for whoever runs
/// the relay. So an invitation is followed only to the relay's own host: the address the
/// connection to the relay reached, or one the relay's host name resolves to; an empty or
/// unspecified address means the relay's own, as `strelaysrv` listening on all addresses
/// sends. The invitation's port is kept, as the relay may listen for sessions on another.
enum RelaySessionAddress {
    /// The host to join an invitation's session at: `connected`, the address the connection
    /// to `relay` reached (its own host as this device resolved it), when `invited` is empty,
    /// unspecified, that address, or one `relay`'s host resolves to.
    ///
    /// - Throws: ``LinkError`` naming the address invited and the relay's own, for any other.
    @MainActor
    static func host(invited: [UInt8], port: UInt16, relay: RelayAddress, connected: String) async throws -> String {
        guard let named = RelayClient.host(invited) else { return connected.isEmpty ? relay.host : connected }
        let address = bytes(of: named)
        if address == bytes(of: connected) { return connected }
        if bytes(of: relay.host) == nil, address != nil, await addresses(of: relay.host).contains(where: { $0 == address }) {
            return named
        }
        throw LinkError("the relay \(relay.host):\(relay.port) invited this device to a session at "
                        + "\(PeerAddress.format(host: named, port: UInt32(port))), which is not the relay's own address "
                        + "(\(connected.isEmpty ? relay.host : connected)): refused")
    }

    /// The bytes of an IP address in text, an IPv4-mapped IPv6 address as IPv4; `nil` for
    /// anything else.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return mapped(v6)
    }

    /// An IPv4-mapped IPv6 address's IPv4 bytes; any other address as it is.
    private static func mapped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return bytes }
        return Array(bytes[12...])
    }

    /// The addresses `host` resolves to, looked up away from the main thread.
    private static func addresses(of host: String) async -> [[UInt8]] {
        await Task.detached {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
            defer { freeaddrinfo(list) }
            var found: [[UInt8]] = []
            var entry = list
            while let info = entry?.pointee {
                entry = info.ai_next
                guard let socketAddress = info.ai_addr else { continue }
                if info.ai_family == AF_INET {
                    var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    found.append(withUnsafeBytes(of: &address) { Array($0) })
                } else if info.ai_family == AF_INET6 {
                    var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    found.append(mapped(withUnsafeBytes(of: &address) { Array($0) }))
                }
            }
            return found
        }.value
    }
}
