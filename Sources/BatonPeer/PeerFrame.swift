/// Baton's network frames: an 8-byte header, then a body.
///
/// The header is the magic `"BT"`, the protocol version (1), the message kind and the body's
/// length as a big-endian `UInt32`. A body is at most ``maximumBodySize`` bytes. A frame
/// with another magic or version, an unknown kind or an oversized length is a protocol
/// error: the link that carried it is closed.
public enum PeerFrame {
    public static let magic: [UInt8] = [0x42, 0x54]
    /// The protocol version this build speaks.
    public static let version: UInt8 = 1
    public static let headerSize = 8
    /// The largest body: room for a payload at its size limit, with headroom for a peer
    /// that breaks the limit to be told so rather than cut off.
    public static let maximumBodySize = 256 * 1024

    /// The frame of one body.
    public static func encode(kind: UInt8, body: [UInt8]) -> [UInt8] {
        encode(kind: kind, bodyPrefix: [], body: body)
    }

    /// The frame of one body made of `bodyPrefix` then `body`, built in one allocation: bulk
    /// data is copied once.
    public static func encode(kind: UInt8, bodyPrefix: [UInt8], body: [UInt8]) -> [UInt8] {
        let length = UInt32(bodyPrefix.count + body.count)
        var frame: [UInt8] = []
        frame.reserveCapacity(headerSize + Int(length))
        frame += magic
        frame += [version, kind, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff),
                  UInt8(length & 0xff)]
        frame += bodyPrefix
        frame += body
        return frame
    }
}

/// Why bytes from a peer are not a frame or message of this protocol.
public struct PeerProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// Splits the bytes read from a link into frames.
public struct FrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The largest body accepted; at most ``PeerFrame/maximumBodySize``.
    public var maximumBodySize = PeerFrame.maximumBodySize {
        didSet { maximumBodySize = min(maximumBodySize, PeerFrame.maximumBodySize) }
    }

    public init() {}

    /// Adds bytes as they were read.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received that are not yet a whole frame.
    public var pendingCount: Int { buffer.count - start }

    /// The kind of the next frame, as soon as a header of this protocol is in (before the
    /// body is); `nil` before that, or when the header is not one (``next()`` throws).
    public var pendingKind: UInt8? {
        guard pendingCount >= PeerFrame.headerSize, Array(buffer[start..<start + 2]) == PeerFrame.magic,
              buffer[start + 2] == PeerFrame.version else { return nil }
        return buffer[start + 3]
    }

    /// The next whole frame, or `nil` until more bytes arrive.
    ///
    /// - Throws: ``PeerProtocolError`` for a header that is not this protocol's.
    public mutating func next() throws -> (kind: UInt8, body: [UInt8])? {
        try next { kind, body in (kind, Array(body)) }
    }

    /// The next whole frame, handed to `read` as its kind and its body in place (valid only
    /// during the call), for a reader that copies what it keeps once; `nil` until one is
    /// whole. Throws as ``next()`` does, and what `read` throws.
    public mutating func next<Frame>(_ read: (UInt8, UnsafeRawBufferPointer) throws -> Frame) throws -> Frame? {
        guard pendingCount >= PeerFrame.headerSize else {
            if pendingCount >= 2, Array(buffer[start..<start + 2]) != PeerFrame.magic {
                throw PeerProtocolError("not a Baton frame")
            }
            return nil
        }
        let header = buffer[start..<start + PeerFrame.headerSize].map { $0 }
        guard Array(header[0..<2]) == PeerFrame.magic else { throw PeerProtocolError("not a Baton frame") }
        guard header[2] == PeerFrame.version else {
            throw PeerProtocolError("protocol version \(header[2]), this device speaks \(PeerFrame.version)")
        }
        let length = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumBodySize else {
            throw PeerProtocolError("a frame of \(length) bytes, over the limit of \(maximumBodySize)")
        }
        guard pendingCount >= PeerFrame.headerSize + length else { return nil }
        let bodyStart = start + PeerFrame.headerSize
        let frame = try buffer.withUnsafeBytes {
            try read(header[3], UnsafeRawBufferPointer(rebasing: $0[bodyStart..<bodyStart + length]))
        }
        start = bodyStart + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return frame
    }
}
