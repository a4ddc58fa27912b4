import Foundation
import Glibc
import Synchronization

/// A tiny HTTP/1.0 server on 127.0.0.1 for browser tests: `GET /NAME` answers an HTML page
/// whose title is the one set for `/NAME` (``setTitle(_:for:)``), else "Page NAME", with the
/// extra markup set for it (a script that retitles or navigates the page). It serves on a
/// thread of its own until ``stop()``.
public final class LoopbackPageServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let pages = Mutex<[String: (title: String, body: String)]>([:])

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackHTTPError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw LoopbackHTTPError("bind or listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The URL of the page `/name`.
    public func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// Sets the title of `/name`, and markup for its body.
    public func setTitle(_ title: String, for name: String, body: String = "") {
        pages.withLock { $0["/" + name] = (title, body) }
    }

    /// Stops serving.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            // One thread each: Chromium opens connections ahead of need that may send nothing.
            let thread = Thread { [self] in
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                answer(client)
                close(client)
            }
            thread.start()
        }
    }

    private func answer(_ client: Int32) {
        guard let request = LoopbackHTTP.readAll(client, until: "\r\n\r\n"),
              let line = request.split(separator: "\r\n").first else { return }
        let parts = line.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : "/"
        let response: String
        if path == "/favicon.ico" {
            response = "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        } else {
            let page = pages.withLock { $0[path] } ?? (title: "Page \(path.dropFirst())", body: "")
            let head = "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(page.title)</title></head>"
            let html = head + "<body><p>\(page.title)</p>\(page.body)</body></html>"
            response = "HTTP/1.0 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(html.utf8.count)\r\n"
                + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + html
        }
        LoopbackHTTP.writeAll(client, Array(response.utf8))
    }
}

/// A tiny HTTP/1.1 client for loopback endpoints (Chromium's DevTools HTTP endpoints).
public enum LoopbackHTTP {
    /// Sends `method path` to 127.0.0.1:`port` and returns the status and body.
    public static func request(_ method: String, port: UInt16, path: String) throws -> (status: Int, body: String) {
        let descriptor = try connection(toPort: port, readTimeout: 10)
        defer { close(descriptor) }
        let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        writeAll(descriptor, Array(request.utf8))
        // DevTools keeps the connection open whatever the request says: the answer ends
        // where its Content-Length says.
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let (head, body) = split(response), let length = contentLength(head), body.count >= length { break }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            response += buffer[..<count]
        }
        guard let (head, body) = split(response),
              let status = head.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw LoopbackHTTPError("not an HTTP answer from port \(port): \(String(decoding: response.prefix(200), as: UTF8.self))")
        }
        return (status, String(decoding: body, as: UTF8.self))
    }

    /// A TCP connection to 127.0.0.1:`port` whose reads give up after `readTimeout` seconds:
    /// its descriptor, for the caller to close.
    static func connection(toPort port: UInt16, readTimeout: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackHTTPError("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw LoopbackHTTPError("connect to port \(port): errno \(error)")
        }
        return descriptor
    }

    /// The header text and the body bytes of a response, once the header is complete.
    private static func split(_ response: [UInt8]) -> (String, ArraySlice<UInt8>)? {
        let marker: [UInt8] = Array("\r\n\r\n".utf8)
        guard response.count >= marker.count,
              let end = (0...(response.count - marker.count)).first(where: { response[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        return (String(decoding: response[..<end], as: UTF8.self), response[(end + marker.count)...])
    }

    /// The `Content-Length` of a response's header.
    private static func contentLength(_ head: String) -> Int? {
        head.split(separator: "\r\n").lazy.compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first
    }

    /// Reads from `descriptor` until `marker` arrives, or to the end; nil when nothing came.
    static func readAll(_ descriptor: Int32, until marker: String?) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
            if let marker, String(decoding: bytes, as: UTF8.self).contains(marker) { break }
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Writes all of `bytes` to `descriptor`, as far as it takes them.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}

/// A loopback HTTP exchange that failed.
public struct LoopbackHTTPError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
