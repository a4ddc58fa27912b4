import Baton
import BatonBus
import BatonGLib
import BatonPeer
import Foundation
import Glibc

/// The continuing half of a document continuation: the activity from another device names a
/// file on that device (its document URL), which means nothing here unless this device has
/// the same file. A paired device's word is never enough to open a file of this device: the
/// activity keeps a file URL only where one of these holds, in order:
/// 1. The same path here, in a place the person shares with other devices (the documents
///    folder, a Syncthing folder), holds the file the device described (same size and
///    SHA-256: a shared folder, a network home): the activity goes to the app as it is. No
///    other file is ever read to compare, so a device cannot learn what files this one holds.
/// 2. The file lies in a Syncthing folder this device shares too: its copy here is used, once
///    it is the one described. While Syncthing brings it, the app shows "Waiting for
///    report.md to sync" with how much has arrived (`ReportProgress`), for at most
///    ``Timeouts/documentSync``.
/// 3. Otherwise (or when the sync is too slow) the file's bytes come over a stream into
///    "Continued from ‹device›" under the documents folder, never over an existing file, and
///    the activity names the copy, with the device under ``UserActivity/documentCopiedFromKey``
///    so the app can say it is a copy.
///
/// An activity naming a file that the device did not describe fails before its app sees it,
/// saying so: nothing of this device's is ever opened in its place. A device cannot mark its
/// own activity as a copy either: ``UserActivity/documentCopiedFromKey`` is batond's.
extension ContinuationBroker {
    /// Reports a held-up continuation's progress to its app: a message and the fraction done.
    /// Returns `false` when the app gave up on the continuation (the person cancelled).
    typealias ProgressReport = @MainActor (String, Double?) async -> Bool

    /// The activity for its app, and the copy made of its document, if one was.
    struct PlacedPayload {
        var bytes: [UInt8]
        /// The copy received for this continuation: removed again when the app does not take
        /// the activity.
        var copy: URL?
    }

    /// The activity to hand the app for `fetched`, with its document here.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` when the activity names a file the device did
    ///   not describe, or the copy cannot be made or does not match what the device described;
    ///   `cancelled` when the app gave up; nothing is left behind.
    func placeDocument(of fetched: FetchedPayload, source: ActivitySource,
                       progress: @escaping ProgressReport) async throws -> PlacedPayload {
        guard case .offer(let offer) = source, case .peer(let deviceID) = offer.origin else {
            return PlacedPayload(bytes: fetched.bytes)
        }
        // Nothing from another device reaches an app unread.
        guard var payload = try? UserActivityPayload(decoding: fetched.bytes) else {
            throw ServiceError.activity(.handoffFailed("the activity from \(offer.device) cannot be read"))
        }
        let claimedCopy = payload.userInfo.removeValue(forKey: UserActivity.documentCopiedFromKey) != nil
        if claimedCopy { logger.info("\(offer.device) marked its own activity as a copy; the mark is batond's and was removed") }
        guard let url = UserActivity.documentURL(in: payload.userInfo), url.isFileURL else {
            return PlacedPayload(bytes: claimedCopy ? try encode(payload) : fetched.bytes)
        }
        // A path this device can use as it is: absolute, on this machine, with no `.` or `..`
        // for a link to turn elsewhere.
        guard url.host.map({ $0.isEmpty || $0 == "localhost" }) ?? true, url.path.hasPrefix("/"),
              !url.path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            logger.notice("\(offer.device)'s activity names a file by a path that is not plain; not continued")
            throw ServiceError.activity(.handoffFailed(
                "\(offer.device)'s activity names its file in a way this device does not follow"))
        }
        guard let document = fetched.document else {
            throw WithheldDocumentFailure(description: withheldDocumentFailure(from: offer.device, fetched.withheld))
        }
        if let path = await sharedPlacePath(of: url), await Self.holdsSameFile(path, as: document) {
            logger.info("\(document.name) from \(offer.device) is here already, at the same path")
            // The app opens the very file that was compared, links resolved.
            continuedDocuments?.remember(fileAt: path, namedBy: deviceID, inPlace: true)
            payload.userInfo[UserActivity.documentURLKey] = .url(URL(fileURLWithPath: path))
            return PlacedPayload(bytes: try encode(payload, naming: document))
        }
        if let location = document.syncthing,
           let synced = try await syncedCopy(of: document, at: location, from: offer.device, progress: progress) {
            continuedDocuments?.remember(fileAt: synced.path, namedBy: deviceID, inPlace: false)
            payload.userInfo[UserActivity.documentURLKey] = .url(synced)
            return PlacedPayload(bytes: try encode(payload, naming: document))
        }
        let copy = try await receiveCopy(of: document, offer: offer, from: deviceID, progress: progress)
        continuedDocuments?.remember(fileAt: copy.path, namedBy: deviceID, inPlace: false)
        payload.userInfo[UserActivity.documentURLKey] = .url(copy)
        payload.userInfo[UserActivity.documentCopiedFromKey] = .string(offer.device)
        do {
            return PlacedPayload(bytes: try encode(payload, naming: document), copy: copy)
        } catch {
            try? FileManager.default.removeItem(at: copy)
            throw error
        }
    }

    /// Why a continuation whose activity names a file `device` did not send fails, for the
    /// person: with the reason `device` gave, when it gave one (a device of an earlier build
    /// does not). Said in the log too.
    func withheldDocumentFailure(from device: String, _ reason: PeerDocumentWithheld?) -> String {
        let why = reason.map { "\($0)" } ?? "it gave no reason"
        logger.notice("\(device)'s activity names a file it did not send (\(why)); not continued, so nothing on this device is opened in its place")
        guard let reason else {
            return "\(device) did not send the file its activity names, so it cannot be opened on this device"
        }
        return "\(device) did not send the file its activity names: \(reason.explanation)"
    }

    /// The path of `url` when it lies in a place this device's person shares with other
    /// devices, links resolved: the documents folder, or a folder Syncthing shares here, unless
    /// it holds the whole home (the home itself, as `user-dirs.dirs` makes the documents folder
    /// where there is none).
    /// `nil` elsewhere: the same-file check reads no other file.
    private func sharedPlacePath(of url: URL) async -> String? {
        func resolved(_ url: URL) -> String { url.standardizedFileURL.resolvingSymlinksInPath().path }
        let path = resolved(url)
        var places = [resolved(XDGDirectories.documents)]
        if let syncthing = SyncthingAPI.local(), let folders = try? await syncthing.folders() {
            places += folders.values.map(resolved)
        }
        // A place that holds the whole home (the home itself, `/home`, `/`) is no place.
        let home = resolved(XDGDirectories.home)
        let shared = places.filter { $0 != "/" && !(home + "/").hasPrefix($0 + "/") }
        return shared.contains { path.hasPrefix($0 + "/") } ? path : nil
    }

    /// The error of a continuation the app gave up while its document was on its way.
    private static var cancelled: ServiceError {
        .activity(.cancelled)
    }

    private func encode(_ payload: UserActivityPayload, naming document: PeerDocument? = nil) throws -> [UInt8] {
        do {
            return try payload.encodedBytes()
        } catch {
            let what = document.map { "cannot name \($0.name) here" } ?? "cannot be handed on"
            throw ServiceError.activity(.handoffFailed("the activity \(what): \(error)"))
        }
    }

    /// This device's copy of a document in a Syncthing folder, once it is the one the other
    /// device described; `nil` when this device does not share the folder, or the copy did
    /// not arrive within ``Timeouts/documentSync`` (then it is copied over the link).
    ///
    /// - Throws: `cancelled` when the app gave up waiting.
    private func syncedCopy(of document: PeerDocument, at location: PeerDocument.SyncthingLocation, from device: String,
                            progress: ProgressReport) async throws -> URL? {
        guard let syncthing = SyncthingAPI.local() else {
            logger.info("\(document.name) is in a Syncthing folder of \(device), but Syncthing does not run here (or its GUI is not plain HTTP on loopback)")
            return nil
        }
        let folder: URL
        do {
            guard let found = try await syncthing.folders()[location.folderID] else {
                logger.info("\(document.name) is in the Syncthing folder \(location.folderID) of \(device), which this device does not share")
                return nil
            }
            folder = found
        } catch {
            logger.info("cannot ask Syncthing here for its folders: \(error)")
            return nil
        }
        // The path comes from the other device (its names checked on arrival): it stays inside
        // the folder, links included, and only a file with the described digest is ever used.
        let file = folder.appendingPathComponent(location.path)
        guard file.resolvingSymlinksInPath().path.hasPrefix(folder.path + "/") else {
            logger.notice("\(device) described \(document.name) at a path that leads outside the Syncthing folder here; not used")
            return nil
        }
        let deadline = MonotonicClock.now + timeouts.documentSync
        var checked: FileStamp?
        var shown: (message: String, fraction: Double, at: Double)?
        while true {
            // Hashed again only when the file changed: a stale copy of the same size is not
            // read every turn.
            let stamp = FileStamp(of: file.path)
            if let stamp, stamp != checked {
                checked = stamp
                if await Self.holdsSameFile(file.path, as: document) {
                    logger.info("\(document.name) from \(device) is here, synced by Syncthing")
                    return file
                }
            }
            guard MonotonicClock.now < deadline else { break }
            let paused = (try? await syncthing.isPaused(location.folderID)) ?? false
            let message = paused ? "Waiting for “\(document.name)” to sync: Syncthing is paused here"
                                 : "Waiting for “\(document.name)” to sync"
            let fraction = Self.syncedFraction(of: file, size: document.size)
            // Sent when it changes, and every second anyway: the app learns the service still
            // waits, and the service that the person still does.
            let now = MonotonicClock.now
            if shown?.message != message || shown?.fraction != fraction || now - (shown?.at ?? 0) >= 1 {
                shown = (message, fraction, now)
                guard await progress(message, fraction) else { throw Self.cancelled }
            }
            await GLibSources.sleep(seconds: 0.25)
        }
        logger.info("\(document.name) did not sync from \(device) within \(Int(timeouts.documentSync)) s; copying it over the link")
        return nil
    }

    /// How much of the file Syncthing has written so far: the blocks its temporary copy
    /// (`.syncthing.NAME.tmp` beside the file, made sparse at full size) holds, as a fraction
    /// of `size`.
    private static func syncedFraction(of file: URL, size: UInt64) -> Double {
        guard size > 0 else { return 0 }
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".syncthing.\(file.lastPathComponent).tmp")
        var status = stat()
        guard stat(temporary.path, &status) == 0 else { return 0 }
        return min(Double(status.st_blocks) * 512 / Double(size), 1)
    }

    /// Whether the regular file at `path` has the described size and digest.
    private static func holdsSameFile(_ path: String, as document: PeerDocument) async -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular,
              (attributes?[.size] as? NSNumber)?.uint64Value == document.size else { return false }
        let local = try? await Task.detached { try PeerDocument.describe(fileAt: path, mimeType: document.mimeType) }.value
        return local?.sha256 == document.sha256
    }

    /// Receives the document's bytes from `deviceID` into a new file in "Continued from
    /// ‹device›" (``CopiesFolder``).
    private func receiveCopy(of document: PeerDocument, offer: Offer, from deviceID: String,
                             progress: ProgressReport) async throws -> URL {
        guard let delegate else { throw ServiceError.activity(.connectionUnavailable("batond is stopping")) }
        let folder = try CopiesFolder(from: offer.device)
        let message = "Copying “\(document.name)” from \(offer.device)"
        guard await progress(message, 0) else { throw Self.cancelled }
        let (partial, descriptor) = try folder.createPartial()
        // The partial file goes in every case: once linked, the copy is its other name.
        defer {
            close(descriptor)
            folder.remove(partial)
        }
        let (ours, theirs) = try Self.socketPair()
        try await delegate.openDocumentStream(theirs, to: offer, from: deviceID)
        guard let end = ours.take() else { throw ServiceError.activity(.connectionUnavailable("the document's socket is closed")) }
        let stream = SocketContinuationStream(taking: end)
        defer { stream.close() }
        var digest = PeerDocument.Digest()
        var received: UInt64 = 0
        var reported: UInt64 = 0
        while true {
            let bytes: [UInt8]
            do {
                bytes = try await stream.read(maximumCount: PeerMessage.maximumStreamChunk)
            } catch {
                throw ServiceError.activity(.connectionUnavailable("\(offer.device) stopped sending \(document.name): \(error)"))
            }
            if bytes.isEmpty { break }
            received += UInt64(bytes.count)
            guard received <= document.size else {
                throw ServiceError.activity(.handoffFailed("\(offer.device) sent more of \(document.name) than it described"))
            }
            digest.update(bytes)
            try Self.writeAll(bytes, to: descriptor, name: document.name)
            // Each MiB keeps the app waiting for the activity, and lets the person cancel.
            if received - reported >= 1 << 20 {
                reported = received
                guard await progress(message, Double(received) / Double(max(document.size, 1))) else { throw Self.cancelled }
            }
        }
        guard received == document.size, digest.finalize() == document.sha256 else {
            throw ServiceError.activity(.handoffFailed(
                "the copy of \(document.name) from \(offer.device) does not match what it described (the file changed, or was cut short): try again"))
        }
        guard fsync(descriptor) == 0 else {
            throw ServiceError.activity(.handoffFailed("cannot save the copy of \(document.name): \(String(cString: strerror(errno)))"))
        }
        let copy = try folder.link(partial, as: document.name)
        logger.info("copied \(document.name) (\(received) bytes) from \(offer.device) to \(copy.path)")
        return copy
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, name: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw ServiceError.activity(.handoffFailed("cannot save the copy of \(name): \(String(cString: strerror(errno)))"))
            }
            offset += written
        }
    }
}
