import BatonGtk
import Foundation

/// Attachments' bytes, in the data folder by their SHA-256 (`attachments/<sha256>`), so a
/// draft restored after a relaunch, or continued back on this device, finds its files; files
/// are added by copying, and arrive from other devices through ``Incoming``.
struct AttachmentStore {
    let directory: URL

    init(dataDirectory: URL) {
        directory = dataDirectory.appendingPathComponent("attachments", isDirectory: true)
    }

    func url(of attachment: Attachment) -> URL {
        directory.appendingPathComponent(attachment.sha256)
    }

    /// Whether the store holds `attachment`'s bytes (a file of its size).
    func holds(_ attachment: Attachment) -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: url(of: attachment).path)[.size] as? NSNumber)?.intValue
        return size == attachment.size
    }

    /// Copies the file at `source` into the store; returns it as an attachment.
    ///
    /// - Throws: ``AttachmentError`` when it is not a readable regular file or is larger
    ///   than ``Attachment/maximumSize``.
    func add(fileAt source: URL) throws -> Attachment {
        let values = try? source.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
        guard values?.isRegularFile == true, let size = values?.fileSize else {
            throw AttachmentError("\(source.lastPathComponent) is not a file that can be attached")
        }
        guard size <= Attachment.maximumSize else {
            throw AttachmentError("\(source.lastPathComponent) is larger than \(Attachment.maximumSize >> 20) MB")
        }
        guard let input = FileHandle(forReadingAtPath: source.path) else {
            throw AttachmentError("\(source.lastPathComponent) cannot be read")
        }
        defer { try? input.close() }
        let incoming = try Incoming(store: self, name: Attachment.cleanName(source.lastPathComponent), expected: nil)
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try incoming.append(Array(chunk))
        }
        return try incoming.finish()
    }

    /// An attachment being written into the store: a temporary file and its running digest.
    final class Incoming {
        private let store: AttachmentStore
        private let name: String
        private let expected: Attachment?
        private let temporary: URL
        private let handle: FileHandle
        private let checksum = g_checksum_new(G_CHECKSUM_SHA256)
        private(set) var count = 0

        /// Starts writing `name`; with `expected`, ``finish()`` checks its size and digest.
        init(store: AttachmentStore, name: String, expected: Attachment?) throws {
            self.store = store
            self.name = name
            self.expected = expected
            try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            temporary = store.directory.appendingPathComponent(".incoming-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: temporary.path) else {
                throw AttachmentError("cannot write into \(store.directory.path)")
            }
            self.handle = handle
        }

        deinit {
            g_checksum_free(checksum)
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }

        func append(_ bytes: [UInt8]) throws {
            count += bytes.count
            guard count <= (expected?.size ?? Attachment.maximumSize) else {
                throw AttachmentError("\(name) is larger than expected")
            }
            bytes.withUnsafeBufferPointer { g_checksum_update(checksum, $0.baseAddress, $0.count) }
            try handle.write(contentsOf: bytes)
        }

        /// Checks what arrived and moves it into the store under its digest.
        func finish() throws -> Attachment {
            try handle.close()
            let digest = g_checksum_get_string(checksum).map { String(cString: $0) } ?? ""
            let attachment = Attachment(name: name, size: count, sha256: digest)
            if let expected, expected.size != count || expected.sha256 != digest {
                throw AttachmentError("\(name) did not arrive intact (\(count) of \(expected.size) bytes, or other bytes)")
            }
            let destination = store.url(of: attachment)
            _ = try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: temporary, to: destination)
            return attachment
        }
    }
}

/// Why an attachment could not be added or received.
struct AttachmentError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
