import Baton
import Foundation

/// How MailComposer moves attachments over a continuation stream. The continuing side asks
/// for the digests it lacks, one per line, and closes its write half; the origin answers
/// each it holds, in order, as a line `SHA256 SIZE` and then the bytes, and closes.
enum AttachmentTransfer {
    /// The origin's side: answers the request with the attachments of `draft` it holds. A
    /// digest that is not one of the draft's is never answered, whatever the request says.
    @MainActor
    static func serve(_ stream: ContinuationStream, attachments: [Attachment], store: AttachmentStore) async {
        defer { stream.close() }
        do {
            let request = try await stream.readToEnd(limit: (64 + 1) * Attachment.maximumCount)
            let wanted = String(decoding: request, as: UTF8.self).split(separator: "\n").map(String.init)
            for digest in wanted {
                guard let attachment = attachments.first(where: { $0.sha256 == digest }), store.holds(attachment),
                      let input = FileHandle(forReadingAtPath: store.url(of: attachment).path) else { continue }
                defer { try? input.close() }
                try await stream.write(Array("\(attachment.sha256) \(attachment.size)\n".utf8))
                var sent = 0
                while sent < attachment.size, let chunk = try input.read(upToCount: 256 << 10), !chunk.isEmpty {
                    let bytes = Array(chunk.prefix(attachment.size - sent))
                    try await stream.write(bytes)
                    sent += bytes.count
                }
            }
        } catch {
            // The other side sees the stream end early and says which attachments are missing.
        }
    }

    /// What came of a transfer: the attachments now in the store, and those that are not,
    /// each with why.
    struct Outcome {
        var received: [Attachment] = []
        var missing: [(attachment: Attachment, reason: String)] = []
    }

    /// The continuing side: asks for `wanted` and writes what arrives into `store`, checking
    /// each size and digest; `progress` runs with the bytes received so far.
    @MainActor
    static func receive(_ wanted: [Attachment], over stream: ContinuationStream, into store: AttachmentStore,
                        progress: @escaping @MainActor (Int) -> Void) async -> Outcome {
        defer { stream.close() }
        var outcome = Outcome()
        var pending = wanted
        var reader = StreamReader(stream)
        var total = 0
        do {
            try await stream.write(Array(wanted.map(\.sha256).joined(separator: "\n").utf8))
            stream.closeWrite()
            while let header = try await reader.line(limit: 128) {
                let fields = header.split(separator: " ")
                guard fields.count == 2, let size = Int(fields[1]),
                      let index = pending.firstIndex(where: { $0.sha256 == fields[0] && $0.size == size }) else {
                    throw AttachmentError("the other device sent something other than an attachment of this draft")
                }
                let attachment = pending.remove(at: index)
                let incoming = try AttachmentStore.Incoming(store: store, name: attachment.name, expected: attachment)
                var left = size
                while left > 0 {
                    let bytes = try await reader.bytes(upTo: min(left, 256 << 10))
                    guard !bytes.isEmpty else { throw AttachmentError("the stream ended inside \(attachment.name)") }
                    try incoming.append(bytes)
                    left -= bytes.count
                    total += bytes.count
                    progress(total)
                }
                do {
                    outcome.received.append(try incoming.finish())
                } catch {
                    outcome.missing.append((attachment, "\(error)"))
                }
            }
            outcome.missing += pending.map { ($0, "the other device did not send it") }
        } catch {
            outcome.missing += pending.map { ($0, "\(error)") }
        }
        return outcome
    }
}

/// Reads lines and counted bytes from a continuation stream.
@MainActor
struct StreamReader {
    private let stream: ContinuationStream
    private var buffer: [UInt8] = []
    private var ended = false

    init(_ stream: ContinuationStream) {
        self.stream = stream
    }

    /// The next line, without its newline; `nil` at the end of the stream.
    mutating func line(limit: Int) async throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            guard buffer.count <= limit else { throw AttachmentError("a line longer than \(limit) bytes") }
            guard try await fill() else {
                guard buffer.isEmpty else { throw AttachmentError("the stream ended inside a line") }
                return nil
            }
        }
    }

    /// Up to `count` bytes; empty at the end of the stream.
    mutating func bytes(upTo count: Int) async throws -> [UInt8] {
        if buffer.isEmpty, !(try await fill()) { return [] }
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(taken.count)
        return taken
    }

    private mutating func fill() async throws -> Bool {
        guard !ended else { return false }
        let chunk = try await stream.read(maximumCount: 256 << 10)
        if chunk.isEmpty { ended = true }
        buffer += chunk
        return !chunk.isEmpty
    }
}
