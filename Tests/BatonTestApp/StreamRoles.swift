import Baton
import BatonGLib
import Foundation

/// Writes a line the tests read on standard error.
@MainActor
func note(_ line: String) {
    FileHandle.standardError.write(Data("note: \(line)\n".utf8))
}

/// The origin's side of continuation streams, as `--streams MODE` asks: `echo` reads the
/// request to its end and answers "echo: " and the request; `bytes:N` answers N bytes
/// (byte i is i mod 251); `hang` holds the stream and never reads; `quit` exits the process;
/// `close` closes it at once; `released` is set as the activity's delegate and released.
@MainActor
final class StreamOrigin: UserActivityDelegate {
    let mode: String
    private var held: [ContinuationStream] = []

    init(mode: String) {
        self.mode = mode
    }

    func userActivity(_ userActivity: UserActivity, didReceive stream: ContinuationStream) {
        note("stream received")
        if mode == "hang" { return held.append(stream) }
        if mode == "quit" { exit(0) }
        if mode == "close" { return stream.close() }
        Task { @MainActor in
            do {
                let request = try await stream.readToEnd(limit: 16 << 20)
                if mode.hasPrefix("bytes:"), let count = Int(mode.dropFirst("bytes:".count)) {
                    var sent = 0
                    while sent < count {
                        let length = min(count - sent, 256 << 10)
                        let start = sent % 251
                        try await stream.write(Array(Pattern.bytes[start..<start + length]))
                        sent += length
                    }
                } else {
                    try await stream.write(Array("echo: ".utf8) + request)
                }
                stream.close()
                note("stream answered")
            } catch {
                note("stream failed on the origin \((error as? UserActivityError)?.code ?? 0): \(error)")
                stream.close()
            }
        }
    }
}

/// The continuing side: inside `continue…`, opens a stream, sends `request`, closes its
/// write half and reads the answer to its end, then says what came: its size and whether
/// every byte is what `bytes:N` sends, or its text.
@MainActor
func requestOverStream(_ activity: UserActivity, request: [UInt8]) {
    let started = Date()
    activity.getContinuationStreams { stream, error in
        guard let stream else {
            note("stream failed \((error as? UserActivityError)?.code ?? 0): \(error.map { "\($0)" } ?? "")")
            return
        }
        note("stream opened in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        if let seconds = option("--stream-timeout").flatMap(Double.init) { (stream as? SocketContinuationStream)?.timeout = seconds }
        Task { @MainActor in
            do {
                try await stream.write(request)
                stream.closeWrite()
                var count = 0
                var patterned = true
                var text: [UInt8] = []
                while true {
                    let chunk = try await stream.read(maximumCount: 256 << 10)
                    if chunk.isEmpty { break }
                    if patterned { patterned = Pattern.matches(chunk, at: count) }
                    if text.count < 200 { text += chunk.prefix(200 - text.count) }
                    count += chunk.count
                }
                stream.close()
                note("stream answer \(count) bytes, patterned \(patterned): \(String(decoding: text, as: UTF8.self))")
            } catch {
                note("stream failed \((error as? UserActivityError)?.code ?? 0): \(error)")
                stream.close()
            }
        }
    }
}

/// The bytes `bytes:N` sends: byte i is i mod 251, so a shifted or lost byte shows.
enum Pattern {
    /// One chunk's worth and one period more, so any chunk is a slice of it.
    static let bytes: [UInt8] = (0..<(251 + (256 << 10))).map { UInt8($0 % 251) }

    /// Whether `chunk`, starting at byte `offset` of the stream, is the pattern.
    static func matches(_ chunk: [UInt8], at offset: Int) -> Bool {
        let start = offset % 251
        guard chunk.count <= bytes.count - start else { return false }
        return chunk.withUnsafeBytes { got in
            bytes.withUnsafeBytes { memcmp(got.baseAddress!, $0.baseAddress! + start, chunk.count) == 0 }
        }
    }
}
