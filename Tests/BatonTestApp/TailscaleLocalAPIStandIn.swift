import Foundation
import Glibc

/// A stand-in for tailscaled's LocalAPI (Tailscale is not packaged in Debian 12): listens on
/// the Unix socket `socket` and answers each `GET /localapi/v0/status` with the contents of
/// the file `status`, read again for each request (so a test changes what it lists), as
/// tailscaled answers it: HTTP/1.1, `Content-Type: application/json`, then the connection
/// closes. Any other request gets a 404, and each request line is written to standard error.
func runTailscaleLocalAPIStandIn(socket path: String, status: String) -> Int32 {
    unlink(path)
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard listener >= 0, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return 66 }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(listener, 8) == 0 else { return 67 }
    FileHandle.standardError.write(Data("tailscaled stand-in ready\n".utf8))
    while true {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { continue }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            request += buffer[0..<count]
            if request.count > 65_536 { break }
        }
        let line = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
        FileHandle.standardError.write(Data("request: \(line)\n".utf8))
        let body: [UInt8]
        let head: String
        if line.hasPrefix("GET /localapi/v0/status "), let data = FileManager.default.contents(atPath: status) {
            body = Array(data)
            head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        } else {
            body = Array("not found\n".utf8)
            head = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        }
        let answer = Array(head.utf8) + body
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        close(client)
    }
}
