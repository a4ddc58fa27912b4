import Foundation
import Glibc

/// A client of Firefox's Marionette, the remote protocol `--marionette` turns on: JSON over a
/// loopback TCP connection, each message its length in decimal, a colon, then the JSON. A
/// command is `[0, id, name, parameters]`, its answer `[1, id, error, result]`. One session,
/// its commands sent one at a time.
public final class Marionette {
    private let descriptor: Int32
    private var nextID = 0
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, reads Firefox's greeting and starts a session whose
    /// navigation does not wait for pages to load (`pageLoadStrategy` none): the tests wait
    /// for what the extension publishes instead, and a page that fails to load is no error.
    public init(port: UInt16) throws {
        do {
            descriptor = try LoopbackHTTP.connection(toPort: port, readTimeout: 30)
        } catch {
            throw FixtureError("Marionette: \(error)")
        }
        _ = try readMessage()
        _ = try call("WebDriver:NewSession", ["capabilities": ["alwaysMatch": ["pageLoadStrategy": "none"]]])
    }

    deinit { close(descriptor) }

    /// Sends the command `name` with `parameters` and returns its result: the `value` of an
    /// object that has one (as most do), else the result itself.
    @discardableResult
    public func call(_ name: String, _ parameters: [String: Any] = [:]) throws -> Any? {
        nextID += 1
        let id = nextID
        let body = try JSONSerialization.data(withJSONObject: [0, id, name, parameters] as [Any])
        LoopbackHTTP.writeAll(descriptor, Array("\(body.count):".utf8) + Array(body))
        while true {
            guard let answer = try readMessage() as? [Any], answer.count == 4,
                  answer[0] as? Int == 1, let answered = answer[1] as? Int else {
                throw FixtureError("Marionette: not an answer to \(name)")
            }
            guard answered == id else { continue }
            if let error = answer[2] as? [String: Any] {
                throw FixtureError("Marionette: \(name) failed: \(error["error"] ?? "") \(error["message"] ?? "")")
            }
            if let object = answer[3] as? [String: Any], object.keys.contains("value") { return object["value"] }
            return answer[3]
        }
    }

    /// Reads one message: its length, a colon, then that many bytes of JSON.
    private func readMessage() throws -> Any {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let colon = pending.firstIndex(of: UInt8(ascii: ":")) {
                guard let length = Int(String(decoding: pending[..<colon], as: UTF8.self)), length >= 0 else {
                    throw FixtureError("Marionette: not a message: \(String(decoding: pending.prefix(40), as: UTF8.self))")
                }
                let start = colon + 1
                if pending.count - start >= length {
                    let body = Data(pending[start..<(start + length)])
                    pending.removeFirst(start + length)
                    return try JSONSerialization.jsonObject(with: body)
                }
            }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw FixtureError("Marionette: the connection ended (errno \(errno))") }
            pending += buffer[..<count]
        }
    }
}
