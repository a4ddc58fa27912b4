import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain IPv4 TCP sockets on loopback addresses (all of 127.0.0.0/8 is this machine's, no
/// setup needed), for the relay figures' forwarders and their choice of port.
enum Loopback {
    /// `host:port` as a socket address.
    static func address(host: String, port: UInt16) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw BenchmarkFailure("\(host) is not an IPv4 address") }
        return address
    }

    /// A socket listening on `host:port`; port 0 picks a free one.
    static func listeningSocket(host: String, port: UInt16) throws -> Int32 {
        var address = try address(host: host, port: port)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure("socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw BenchmarkFailure("cannot listen on \(host):\(port): \(reason)")
        }
        return socket
    }

    /// The port a socket is bound to.
    static func port(of socket: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A port free on each of `hosts` now: the relay listens on the first, and its
    /// invitations name its port, so each forwarder must listen on the same one.
    static func freePort(on hosts: [String]) throws -> UInt16 {
        guard let first = hosts.first else { throw BenchmarkFailure("no host to find a port on") }
        for _ in 0..<20 {
            let probe = try listeningSocket(host: first, port: 0)
            let port = port(of: probe)
            var sockets = [probe]
            for host in hosts.dropFirst() {
                guard let socket = try? listeningSocket(host: host, port: port) else { break }
                sockets.append(socket)
            }
            sockets.forEach { close($0) }
            if sockets.count == hosts.count { return port }
        }
        throw BenchmarkFailure("no port free on all of \(hosts.joined(separator: ", "))")
    }

    /// A blocking connection to `address`.
    static func connect(to address: sockaddr_in) throws -> Int32 {
        var address = address
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure("socket: \(String(cString: strerror(errno)))") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw BenchmarkFailure("connect: \(reason)")
        }
        return socket
    }

    /// Sends each write at once: Nagle's algorithm would hold small ones back for an ACK.
    static func sendAtOnce(_ socket: Int32) {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }
}
