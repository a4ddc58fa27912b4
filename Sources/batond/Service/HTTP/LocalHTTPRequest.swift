import Foundation
import Glibc

/// One blocking HTTP/1.0 request to a service on this machine, read until the service closes:
/// batond's clients of local APIs (Syncthing's REST API on a loopback port, tailscaled's
/// LocalAPI on a Unix socket). Called off the main actor, in a detached task: it blocks that
/// thread at most ``timeout`` seconds for each send and receive, and these services answer on
/// this machine in milliseconds.
struct LocalHTTPRequest: Sendable {
    /// Where the service listens.
    enum Endpoint: Sendable, Equatable {
        /// An IPv4 address and port.
        case tcp(host: String, port: UInt16)
        /// A Unix socket's path.
        case unix(path: String)
    }

    /// What failed, for the caller to say in its own words.
    struct Failure: Error, Sendable {
        enum Step: Sendable { case connect, send, receive, tooLarge }
        let step: Step
        let detail: String
    }

    let endpoint: Endpoint
    /// Seconds each send and receive may wait.
    let timeout: Int
    /// The most bytes of answer read.
    let maximumResponse: Int

    /// Sends `request` (the whole request, header and empty line) and returns the answer.
    ///
    /// - Throws: ``Failure`` naming the step that failed.
    func send(_ request: String) throws(Failure) -> [UInt8] {
        let descriptor = try connected()
        defer { close(descriptor) }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw Failure(step: .send, detail: Self.lastError) }
            sent += count
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw Failure(step: .receive, detail: Self.lastError) }
            response += buffer[0..<count]
            guard response.count <= maximumResponse else { throw Failure(step: .tooLarge, detail: "over \(maximumResponse) bytes") }
        }
        return response
    }

    /// A socket connected to the endpoint, with the timeouts set.
    private func connected() throws(Failure) -> Int32 {
        let family = if case .unix = endpoint { AF_UNIX } else { AF_INET }
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(step: .connect, detail: "no socket: \(Self.lastError)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let status: Int32
        switch endpoint {
        case .tcp(let host, let port):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                close(descriptor)
                throw Failure(step: .connect, detail: "\(host) is not an IPv4 address")
            }
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .unix(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            guard !bytes.isEmpty, bytes.count < capacity else {
                close(descriptor)
                throw Failure(step: .connect, detail: "the socket path is too long")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                for (index, byte) in bytes.enumerated() { path[index] = byte }
            }
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        guard status == 0 else {
            let detail = Self.lastError
            close(descriptor)
            throw Failure(step: .connect, detail: detail)
        }
        return descriptor
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
