import Crypto
import Foundation

extension PeerDocument {
    /// The SHA-256 digest of bytes that come in parts: a document as it is read or received.
    public struct Digest: Sendable {
        private var hasher = SHA256()

        public init() {}

        public mutating func update(_ bytes: [UInt8]) {
            hasher.update(data: bytes)
        }

        public func finalize() -> [UInt8] {
            Array(hasher.finalize())
        }
    }

    /// Describes the regular file at `path`, reading it whole for its digest.
    ///
    /// - Throws: ``PeerDocumentError`` when it is not a regular file, is larger than
    ///   ``maximumSize``, or cannot be read; its name must be a file name (``isFileName(_:)``).
    public static func describe(fileAt path: String, mimeType: String) throws -> PeerDocument {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard isFileName(name) else { throw PeerDocumentError.unsendableName }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw PeerDocumentError("it cannot be read: \(error.localizedDescription)")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw PeerDocumentError("it is not a regular file") }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw PeerDocumentError("it cannot be read: \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        return try describe(reading: handle, name: name, mimeType: mimeType)
    }

    /// Describes the file open as `handle` (a regular file, opened and checked by the caller),
    /// named `name`, reading it whole from its start; the handle is left at its start again.
    ///
    /// - Throws: ``PeerDocumentError`` when it is larger than ``maximumSize`` or cannot be read.
    public static func describe(reading handle: FileHandle, name: String, mimeType: String) throws -> PeerDocument {
        guard isFileName(name) else { throw PeerDocumentError.unsendableName }
        do {
            try handle.seek(toOffset: 0)
        } catch {
            throw PeerDocumentError("it cannot be read: \(error.localizedDescription)")
        }
        defer { try? handle.seek(toOffset: 0) }
        var digest = Digest()
        var size: UInt64 = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw PeerDocumentError("it cannot be read: \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            size += UInt64(chunk.count)
            guard size <= maximumSize else { throw PeerDocumentError.tooLarge }
            digest.update(Array(chunk))
        }
        return PeerDocument(name: name, size: size, sha256: digest.finalize(), mimeType: mimeType)
    }
}

/// Why a document cannot be described or received.
public struct PeerDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }

    /// The file is larger than ``PeerDocument/maximumSize``.
    public static let tooLarge = PeerDocumentError("it is larger than \(PeerDocument.maximumSize >> 20) MiB")
    /// Its name is not a file name that can be sent (``PeerDocument/isFileName(_:)``).
    public static let unsendableName = PeerDocumentError("its name cannot be sent")
}
