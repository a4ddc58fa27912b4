/// An HTTP/1.x response as a server sent it, read whole: batond's HTTP clients (Syncthing's
/// REST API and tailscaled's LocalAPI on this machine, web sites' association files) send one
/// request and read until the server closes, so there is no chunked or pipelined form to read.
struct HTTPResponse: Equatable, Sendable {
    /// The status code, such as `200`.
    let status: Int
    /// The status line after the code, such as `Not Found`.
    let reason: String
    /// The header fields, names lowercased, values trimmed; the last of a repeated field wins.
    let headers: [String: String]
    let body: [UInt8]

    /// The most header bytes read.
    static let maximumHeaderSize = 16 << 10

    /// Reads a response.
    ///
    /// - Throws: ``HTTPResponseError`` when it is not an HTTP/1.x response with a status line
    ///   and header fields ended by an empty line, or its header is over
    ///   ``maximumHeaderSize``.
    init(_ response: [UInt8]) throws {
        let separator: [UInt8] = [13, 10, 13, 10]
        let limit = min(response.count, Self.maximumHeaderSize + separator.count)
        guard let end = response[..<limit].indices.first(where: { response[$0...].starts(with: separator) }) else {
            throw HTTPResponseError(response.count > Self.maximumHeaderSize ? "the header is too large" : "not an HTTP response")
        }
        let lines = String(decoding: response[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), statusParts[1].count == 3,
              let status = Int(statusParts[1]), (100...599).contains(status) else {
            throw HTTPResponseError("not an HTTP response")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw HTTPResponseError("a header line is not NAME: VALUE")
            }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.status = status
        reason = statusParts.count > 2 ? String(statusParts[2]) : ""
        self.headers = headers
        body = Array(response[(end + separator.count)...])
    }

    /// The `max-age` of `Cache-Control`, in seconds; `nil` when there is none, or it cannot be
    /// read. `no-store` and `no-cache` count as 0.
    var maximumAge: Int? {
        guard let control = headers["cache-control"] else { return nil }
        var age: Int?
        for directive in control.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if directive == "no-store" || directive == "no-cache" { return 0 }
            if directive.hasPrefix("max-age="), let value = Int(directive.dropFirst("max-age=".count)), value >= 0 {
                age = value
            }
        }
        return age
    }
}

/// Why an answer is not an HTTP response batond can read.
struct HTTPResponseError: Error, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
