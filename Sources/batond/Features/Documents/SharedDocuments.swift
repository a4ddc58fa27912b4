import Baton
import BatonBus
import BatonGLib
import BatonPeer
import CGLib
import Foundation
import Logging

/// The documents this device described to paired devices beside the activities they fetched,
/// and the streams that send them their bytes (the origin's half of a document continuation).
///
/// A file is described only when the app whose activity names it is verified for the
/// activity's type and its desktop entry declares the file's type for it
/// (`X-Baton-DocumentTypes`): so an activity can only carry a document of the kind its app
/// really edits. The file is read as the app sees it (through `/proc/PID/root`), so a
/// sandboxed app can never have batond send a file from outside its sandbox. A device may
/// fetch the bytes of a document described to it once, within ``lifetime``; a file that
/// changed since is caught by its digest on arrival. A file that a device's continuation had
/// an app open in place is never described to that device while it is unchanged
/// (``ContinuedDocuments``).
@MainActor
final class SharedDocuments {
    private struct Described {
        /// The device it was described to, beside the activity it fetched.
        let deviceID: String
        let activityID: String
        /// The file, opened when it was described.
        let file: FileHandle
        /// What the device was told of it.
        let document: PeerDocument
        /// When, on the monotonic clock.
        let at: Double
    }

    /// Seconds a described document may be fetched.
    static let lifetime = 600.0
    /// The most described documents kept (each holds its file open).
    static let capacity = 16

    private var described: [Described] = []
    private let logger: Logger
    private let continuedDocuments: ContinuedDocuments

    init(logger: Logger, continuedDocuments: ContinuedDocuments = ContinuedDocuments()) {
        self.logger = logger
        self.continuedDocuments = continuedDocuments
    }

    /// Describes the file the activity `bytes` names (its document URL), for `deviceID`
    /// fetching the activity `activityID` of `app`, or says why it is withheld (also in the
    /// log, without the file's name); `nil` when the activity names no file.
    func describe(_ bytes: [UInt8], of app: RegisteredApp, activityID: String, to deviceID: String) async -> DocumentDescription? {
        guard let payload = try? UserActivityPayload(decoding: bytes),
              let url = UserActivity.documentURL(in: payload.userInfo), url.isFileURL else { return nil }
        let type = payload.activityType
        let what = "the document of \(app.appID)'s \(type)"
        guard app.isVerified(for: type) else {
            return withhold(.notVerified, what, "the app is not verified for that type")
        }
        // The file the app sees: in its own mount namespace (a Flatpak's sandbox), the same
        // as batond's for an app on the host.
        let path = "/proc/\(app.pid)/root" + url.standardizedFileURL.path
        guard let contentType = Self.contentType(ofFileAt: path) else {
            return withhold(.unreadable, what, "it is not a file the app can read")
        }
        if let refusal = continuedDocuments.refusal(ofFileAt: url.standardizedFileURL.path, seenAt: path, to: deviceID) {
            return withhold(.openedByThisDevice, what, refusal)
        }
        let entry = InstalledApps.all().first { $0.appID == app.appID }
        guard let entry, entry.activityType(forDocumentOf: contentType) == type else {
            let declared = entry?.documentTypes.activityTypes.filter { $0.value == type }.keys.sorted() ?? []
            let hint = PeerDocumentWithheld.fallbackMIMETypes.contains(contentType)
                ? "; GIO gives \(contentType) to a file whose extension has no shared-mime-info definition" : ""
            return withhold(.undeclaredType(contentType), what,
                            "its desktop entry does not declare \(contentType) for \(type) (X-Baton-DocumentTypes declares "
                                + "\(declared.isEmpty ? "none" : declared.joined(separator: ", ")))\(hint)")
        }
        return await describe(path: path, url: url, contentType: contentType, activityID: activityID, to: deviceID, what: what)
    }

    /// Describes a document of the desktop's recent list (``RecentDocuments``), read where
    /// batond sees it, or says why it is withheld (also in the log, without the file's name).
    ///
    /// The file is opened once, without following a link and without waiting on a FIFO, and
    /// what was opened is checked again: a regular file of at most
    /// ``RecentList/maximumDocumentSize`` whose real path (links in its folders resolved)
    /// lies in `home` outside hidden folders. What is described and later sent is that open
    /// file, so nothing swapped in after the check is read.
    func describeRecent(_ url: URL, activityID: String, to deviceID: String,
                        home: URL = XDGDirectories.home) async -> DocumentDescription {
        let what = "a recent document"
        let descriptor = open(url.standardizedFileURL.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            return withhold(.unreadable, what, "it cannot be opened (\(String(cString: strerror(errno))))")
        }
        // Owned by the handle from here: it is closed with the handle, or kept to send the file.
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        let opened = "/proc/self/fd/\(descriptor)"
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return withhold(.unreadable, what, "it is no longer a regular file")
        }
        guard Int64(status.st_size) <= RecentList.maximumDocumentSize else {
            return withhold(.tooLarge, what, "it is larger than \(RecentList.maximumDocumentSize >> 20) MiB")
        }
        guard let real = try? FileManager.default.destinationOfSymbolicLink(atPath: opened),
              RecentList.isInsideVisibleFolder(real, of: home.resolvingSymlinksInPath().path)
        else {
            return withhold(.outsideHome, what, "it is no longer in a visible folder of the home folder")
        }
        guard let contentType = Self.contentType(ofFileAt: real) else {
            return withhold(.unreadable, what, "its type cannot be read")
        }
        if let refusal = continuedDocuments.refusal(ofFileAt: real, seenAt: opened, to: deviceID) {
            return withhold(.openedByThisDevice, what, refusal)
        }
        return await describe(path: real, url: URL(fileURLWithPath: real), contentType: contentType, activityID: activityID,
                              to: deviceID, what: what, opened: handle)
    }

    /// Says in the log that `what` is not sent and `why` (never the file's name), and gives
    /// the reason the fetching device is told.
    private func withhold(_ reason: PeerDocumentWithheld, _ what: String, _ why: String) -> DocumentDescription {
        logger.notice("not sending \(what): \(why)")
        return .withheld(reason)
    }

    /// Describes the file at `path` (`url` as its activity names it) and keeps it open for
    /// `deviceID`'s stream of it.
    /// With `opened`, the file is that one, already opened and checked (its path is then only
    /// its name's source), and nothing is opened by path.
    private func describe(path: String, url: URL, contentType: String, activityID: String, to deviceID: String,
                          what: String, opened: FileHandle? = nil) async -> DocumentDescription {
        var document: PeerDocument
        let file: FileHandle
        do {
            if let opened {
                file = opened
                let name = url.lastPathComponent
                document = try await Task.detached { try PeerDocument.describe(reading: opened, name: name, mimeType: contentType) }.value
            } else {
                file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                document = try await Task.detached { try PeerDocument.describe(fileAt: path, mimeType: contentType) }.value
            }
        } catch let error as PeerDocumentError where error == .tooLarge || error == .unsendableName {
            return withhold(error == .tooLarge ? .tooLarge : .unsendableName, what, error.reason)
        } catch {
            // Not the error's own words: Foundation's name the file.
            return withhold(.unreadable, what, "it is not a regular file that can be read")
        }
        if let syncthing = SyncthingAPI.local() {
            do {
                document.syncthing = try await syncthing.location(ofFileAt: url.path)
            } catch {
                logger.info("cannot ask Syncthing where \(document.name) is: \(error)")
            }
        }
        let now = MonotonicClock.now
        forget { $0.deviceID == deviceID && $0.activityID == activityID || now - $0.at > Self.lifetime }
        described.append(Described(deviceID: deviceID, activityID: activityID, file: file, document: document, at: now))
        if described.count > Self.capacity { forget { [first = described.first?.file] in $0.file === first } }
        return .described(document)
    }

    /// Drops the descriptions that match, closing their files.
    private func forget(_ matches: (Described) -> Bool) {
        for entry in described where matches(entry) { try? entry.file.close() }
        described.removeAll(where: matches)
    }

    /// A stream of the bytes of the document described to `deviceID` for `activityID`: one
    /// end of a socket pair, the file written into the other and its write half closed at the
    /// end. A description serves one stream.
    ///
    /// - Throws: ``ServiceError/activity(_:)`` when no such document was described lately.
    func stream(of activityID: String, to deviceID: String, name deviceName: String) throws -> BusFileDescriptor {
        let now = MonotonicClock.now
        guard let index = described.lastIndex(where: { $0.deviceID == deviceID && $0.activityID == activityID && now - $0.at <= Self.lifetime })
        else {
            throw ServiceError.activity(.handoffFailed("no document of that activity was described to this device lately"))
        }
        let entry = described.remove(at: index)
        let (ours, theirs) = try ContinuationBroker.socketPair()
        guard let descriptor = ours.take() else {
            try? entry.file.close()
            throw ServiceError.activity(.connectionUnavailable("the document's socket is closed"))
        }
        let stream = SocketContinuationStream(taking: descriptor)
        let logger = logger
        let name = entry.document.name
        let file = entry.file
        Task { @MainActor in
            defer {
                try? file.close()
                stream.close()
            }
            do {
                var sent = 0
                // Read off the main actor: the file may be on a slow disk or a network share.
                while true {
                    let chunk = try await Task.detached { try file.read(upToCount: PeerMessage.maximumStreamChunk) }.value ?? Data()
                    if chunk.isEmpty { break }
                    try await stream.write(Array(chunk))
                    sent += chunk.count
                }
                stream.closeWrite()
                logger.info("sent \(name) (\(sent) bytes) to \(deviceName)")
            } catch {
                logger.info("sending \(name) to \(deviceName) failed: \(error)")
            }
        }
        return theirs
    }

    /// The MIME type GIO gives the regular file at `path` (by its name and contents), or nil
    /// when it is not a regular file that can be read.
    static func contentType(ofFileAt path: String) -> String? {
        let file = g_file_new_for_path(path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let info = g_file_query_info(file, "standard::content-type,standard::type", G_FILE_QUERY_INFO_NONE, nil, nil) else {
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        guard g_file_info_get_file_type(info) == G_FILE_TYPE_REGULAR, let type = g_file_info_get_content_type(info) else { return nil }
        return String(cString: type)
    }
}

extension InstalledApp {
    /// The activity type the app's documents of content type `contentType` carry: the one
    /// declared for that type, or for one it is a kind of (a `text/x-readme` file is
    /// `text/plain`).
    func activityType(forDocumentOf contentType: String) -> String? {
        if let exact = documentTypes.activityType(forDocumentOf: contentType) { return exact }
        return documentTypes.activityTypes.sorted { $0.key < $1.key }
            .first { g_content_type_is_mime_type(contentType, $0.key) != 0 }?.value
    }
}
