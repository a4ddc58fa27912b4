import CGLib
import Foundation

extension WebHost {
    /// Whether the host is this computer or one on its own network, where a page may be a
    /// router's, a printer's or a local service's settings rather than a site's:
    /// - IPv4 loopback (127/8), "this network" (0/8), private networks (10/8, 172.16/12,
    ///   192.168/16), link-local (169.254/16) and shared address space (CGNAT, 100.64/10);
    /// - IPv6 loopback (`::1`), unspecified (`::`), unique local (fc00::/7), link-local
    ///   (fe80::/10), site-local (fec0::/10), and IPv4-mapped addresses of the above;
    /// - the names `localhost` and `*.localhost`, mDNS names (`*.local`), `*.home.arpa`, and
    ///   names of one label (`router`), which resolve on the local network.
    ///
    /// A public name that resolves to a local address is not seen here.
    public var isLocal: Bool {
        switch kind {
        case .name:
            let labels = ascii.split(separator: ".")
            guard labels.count > 1 else { return true }
            return labels.last == "localhost" || labels.last == "local" || ascii.hasSuffix(".home.arpa")
        case .ipv4:
            return Self.isLocalIPv4(Self.bytes(ascii, family: AF_INET, count: 4))
        case .ipv6:
            let bytes = Self.bytes(ascii, family: AF_INET6, count: 16)
            guard bytes.count == 16 else { return false }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return Self.isLocalIPv4(Array(bytes[12...]))
            }
            let unspecified = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1
            return unspecified || bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0x80 == 0x80)
        }
    }

    private static func isLocalIPv4(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 4 else { return false }
        switch (bytes[0], bytes[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
        case (172, let second): return (16...31).contains(second)
        case (100, let second): return (64...127).contains(second)
        default: return false
        }
    }

    /// The bytes of an address in its text form; empty when it is not one.
    private static func bytes(_ text: String, family: Int32, count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        guard inet_pton(family, text, &buffer) == 1 else { return [] }
        return buffer
    }
}
