import BatonPeer
import Foundation
import Glibc

/// Copied files: this device answers a paired device's paste of them (their list, then each
/// file window by window), and a paste here of another device's saves them in "Continued
/// from ‹device›" and pastes their paths there.
extension ClipboardFeature {
    /// Answers a fetch of this device's copied `files`: their list (``PeerClipboardFiles/announcedType``)
    /// or one file's window from `offset`, read now.
    func answer(_ request: UInt32, files: CopiedFiles, type: String, offset: UInt32, to deviceID: String) {
        let window: [UInt8]
        let total: Int
        if type == PeerClipboardFiles.announcedType {
            let list = files.manifest.bytes
            window = Array(list[min(Int(offset), list.count)..<min(list.count, Int(offset) + PeerClipboardOffer.maximumWindow)])
            total = list.count
        } else if let index = PeerClipboardFiles.fileIndex(of: type), files.files.indices.contains(index) {
            do {
                window = try files.window(of: index, from: Int(offset))
                total = Int(files.files[index].size)
            } catch {
                network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) asked for a copied file: \(error)")
                network.send(.clipboardData(request: request, .failed(.unreadable)), to: deviceID)
                return
            }
        } else {
            network.send(.clipboardData(request: request, .failed(.typeNotOffered)), to: deviceID)
            return
        }
        guard !window.isEmpty || total == 0 else {
            // A window past the end: no device that follows the protocol asks for one.
            network.send(.clipboardData(request: request, .failed(.unreadable)), to: deviceID)
            return
        }
        for part in PeerClipboardAnswer.parts(ofWindow: window, at: Int(offset), total: total) {
            network.send(.clipboardData(request: request, part), to: deviceID)
        }
        if offset == 0 {
            let what = type == PeerClipboardFiles.announcedType ? "the list of \(files.files.count) copied files" : "a copied file of \(total) bytes"
            network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) pasted \(what)")
        }
    }

    /// The files of the promise `token` of `deviceID`, fetched into "Continued from ‹device›"
    /// (once for the promise, whichever file-list type an app asks for): their paths here.
    func receiveFiles(token: String, from deviceID: String) async throws -> [URL] {
        guard let promise, promise.token == token, promise.deviceID == deviceID, promise.expires > Date(),
              promise.types.contains(PeerClipboardFiles.announcedType) else { throw ClipboardError.changed }
        if let received = receivedFiles, received.token == token { return try await received.task.value }
        let task = Task { @MainActor in try await fetchFiles(token: token, from: deviceID) }
        receivedFiles = (token, task)
        do {
            return try await task.value
        } catch {
            if receivedFiles?.token == token { receivedFiles = nil }
            throw error
        }
    }

    private func fetchFiles(token: String, from deviceID: String) async throws -> [URL] {
        let listBytes = try await fetchWindows(PeerClipboardFiles.announcedType, token: token, from: deviceID, into: nil)
        let list: PeerClipboardFiles
        do {
            list = try PeerClipboardFiles(bytes: listBytes)
        } catch {
            network.log(.notice, from: deviceID, "\(network.deviceName(deviceID)) sent a list of copied files that is not one: \(error)")
            throw ClipboardError.unavailable("\(network.deviceName(deviceID)) sent a bad list of files")
        }
        let folder: CopiesFolder
        do {
            folder = try CopiesFolder(from: network.deviceName(deviceID))
        } catch {
            throw ClipboardError.unavailable("\(error)")
        }
        var urls: [URL] = []
        for (index, file) in list.files.enumerated() {
            let partial = try partialCopy(in: folder)
            defer { close(partial.descriptor) }
            do {
                var written: UInt64 = 0
                _ = try await fetchWindows(PeerClipboardFiles.fileType(index), token: token, from: deviceID) { window in
                    written += UInt64(window.count)
                    guard written <= file.size else { throw CopiedFilesError("more bytes than the file's size") }
                    try Self.write(window, to: partial.descriptor)
                }
                guard written == file.size else { throw ClipboardError.unavailable("\(network.deviceName(deviceID)) sent a file of another size") }
                urls.append(try folder.link(partial.name, as: file.name))
                folder.remove(partial.name)
            } catch {
                folder.remove(partial.name)
                throw error
            }
        }
        network.log(.info, from: deviceID, "saved \(urls.count) files copied on \(network.deviceName(deviceID)) in \(folder.url.lastPathComponent)")
        return urls
    }

    private func partialCopy(in folder: CopiesFolder) throws -> (name: String, descriptor: Int32) {
        do {
            return try folder.createPartial()
        } catch {
            throw ClipboardError.unavailable("\(error)")
        }
    }

    /// Writes all of `bytes` to `descriptor`.
    private static func write(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) throws {
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { Glibc.write(descriptor, $0 + done, buffer.count - done) } ?? -1
            }
            guard wrote > 0 else { throw CopiedFilesError("the copy could not be written: \(String(cString: strerror(errno)))") }
            done += wrote
        }
    }
}
