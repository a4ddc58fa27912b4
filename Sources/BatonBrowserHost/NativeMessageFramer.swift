/// Cuts the byte stream a browser writes to a native messaging host into messages: each is a
/// 32-bit length in the machine's byte order followed by that many bytes of UTF-8 JSON.
///
/// A frame longer than ``BrowserMessage/maximumSize`` is reported as soon as its length is
/// read and then skipped without being kept, so a hostile length costs no memory and the
/// frames after it are read as usual.
struct NativeMessageFramer {
    /// What the bytes so far held.
    enum Event: Equatable, Sendable {
        /// One whole message's bytes.
        case message([UInt8])
        /// A frame announcing `length` bytes, over the limit: its bytes are skipped.
        case oversized(length: Int)
    }

    private var header: [UInt8] = []
    private var body: [UInt8] = []
    /// The length of the message being read, once its header is complete.
    private var expected: Int?
    /// Bytes of an oversized frame still to skip.
    private var skipping = 0

    /// Whether the stream ended cleanly here: no frame is partly read.
    var isBetweenFrames: Bool { header.isEmpty && expected == nil && skipping == 0 }

    /// Reads `bytes`, the next bytes of the stream, and returns the events they complete.
    mutating func append(_ bytes: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            if skipping > 0 {
                let skipped = min(skipping, rest.count)
                skipping -= skipped
                rest = rest.dropFirst(skipped)
            } else if let length = expected {
                let taken = rest.prefix(length - body.count)
                body.append(contentsOf: taken)
                rest = rest.dropFirst(taken.count)
                if body.count == length {
                    events.append(.message(body))
                    body = []
                    expected = nil
                }
            } else {
                let taken = rest.prefix(4 - header.count)
                header.append(contentsOf: taken)
                rest = rest.dropFirst(taken.count)
                guard header.count == 4 else { continue }
                let length = Int(header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                header = []
                if length > BrowserMessage.maximumSize {
                    events.append(.oversized(length: length))
                    skipping = length
                } else if length == 0 {
                    events.append(.message([]))
                } else {
                    expected = length
                    body.reserveCapacity(length)
                }
            }
        }
        return events
    }

    /// The frame header for a message of `count` bytes: what a browser writes before it.
    static func header(forLength count: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: count)) { Array($0) }
    }
}
