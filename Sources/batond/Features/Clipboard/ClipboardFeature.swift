import BatonGLib
import BatonPeer
import Foundation

/// Universal Clipboard: a copy on this device is announced to the paired devices (its types,
/// never its content), and a device's announcement becomes this device's clipboard as a
/// promise whose content is fetched only when an app here pastes.
///
/// Each side keeps one announcement: this device's own copy (``announcement``), live for
/// ``lifetime`` seconds, and the promise of the last device that announced one (``promise``),
/// replaced by the next from any device, and withdrawn when it expires, when its device
/// withdraws it, unlinks or is unpaired, or when a copy here replaces it. Whether a device
/// takes part is the ``PeerNetworkDelegate``'s to say (`sharesClipboard(with:)`: the setting
/// and the device's). Nothing of the content is logged: types and sizes only.
@MainActor
final class ClipboardFeature: PeerFeature {
    /// Seconds an announcement lasts unless `--clipboard-lifetime` shortens it.
    nonisolated static let standardLifetime = 120.0
    /// The most announcements taken from one device a minute; more are dropped.
    static let maximumOffersPerMinute = 30
    /// The most fetches of one device this device answers at once; more are answered `busy`.
    static let maximumFetchesServed = 2

    unowned let network: PeerNetwork
    /// The session's clipboard, once the daemon gave it one (``start(with:)``): without it the
    /// feature announces nothing and takes no promise.
    private(set) var clipboard: (any LocalClipboard)?
    /// Seconds this device's announcements last, and the longest it keeps another's promise.
    var lifetime = standardLifetime

    /// This device's copy on offer.
    private(set) var announcement: Announcement?
    /// Counts the changes of this device's clipboard (its copies, and promises it takes): a
    /// file list read across one is stale.
    private var copies = 0
    /// The files of the promise being pasted here, by the promise's token: fetched once,
    /// for every file-list type an app asks for.
    var receivedFiles: (token: String, task: Task<[URL], any Error>)?
    /// The promise this device's clipboard holds: the device that announced it, its token and
    /// types, and until when.
    private(set) var promise: (deviceID: String, token: String, types: [String], expires: Date)?
    /// This device's fetches waiting for their answer, by request number.
    private var fetches: [UInt32: PendingFetch] = [:]
    /// The copy read for each device's paste that is larger than one window, kept for the
    /// device's fetches of the next windows: by device id.
    private var readCopies: [String: (token: String, type: String, bytes: [UInt8])] = [:]
    /// Fetches being answered, by device id.
    private var served: [String: Int] = [:]
    /// Announcements taken per device.
    private var offerRate = RateLimit(count: maximumOffersPerMinute, per: 60)
    /// The devices whose announcements are being dropped, logged once until one is taken again.
    private var throttled: Set<String> = []
    private lazy var expiry = ExpiryTimer { [weak self] in self?.expire() }
    /// When an app here last pasted another device's copy.
    private var lastPaste: Date?
    /// Seconds after a paste in which a copy of the pasted types is taken for the pasted
    /// content copied again (clipboard managers do it within milliseconds), not a copy of
    /// the person's.
    static let repeatedPasteWindow = 0.5

    /// This device's copy on offer: what was announced, until when, to which devices, which
    /// paired devices it is never announced to (those the clipboard was not shared with when
    /// it was copied: turning sharing on again does not send an earlier copy), and the files
    /// it offers, when it is a copy of files.
    struct Announcement {
        let offer: PeerClipboardOffer
        let expires: Date
        var devices: Set<String>
        var withheld: Set<String>
        let files: CopiedFiles?
    }

    /// A fetch of this device: the device asked, the type, the bytes so far, where the
    /// window being answered began, and how that window ends.
    private struct PendingFetch {
        let deviceID: String
        let type: String
        /// The bytes received and not yet handed to the fetch's sink.
        var bytes: [UInt8] = []
        /// All bytes received so far.
        var received = 0
        var total: UInt32?
        var windowStart: UInt32 = 0
        var finishWindow: (@MainActor (Result<Void, ClipboardError>) -> Void)?
    }

    init(network: PeerNetwork) {
        self.network = network
    }

    let messageKinds: Set<PeerMessage.Kind> = [.clipboardOffer, .clipboardWithdraw, .clipboardFetch, .clipboardData]
    var capability: String? { PeerCapability.clipboard }

    /// Starts watching `clipboard`: its copies are announced from now on.
    func start(with clipboard: any LocalClipboard) {
        self.clipboard = clipboard
        clipboard.onCopied = { [weak self] content in self?.copied(content) }
    }

    /// Stops watching the clipboard, giving it up.
    func stop() {
        endPromise()
        clipboard?.onCopied = nil
        clipboard?.stop()
        clipboard = nil
    }

    func received(_ message: PeerMessage, from device: PeerDevice) {
        switch message {
        case .clipboardOffer(let offer): take(offer, from: device.id)
        case .clipboardWithdraw(let token):
            if let promise, promise.deviceID == device.id, promise.token == token {
                network.log(.info, from: device.id, "\(network.deviceName(device.id)) withdrew its copy")
                endPromise()
            }
        case .clipboardFetch(let request, let token, let type, let offset):
            answer(request, token: token, type: type, offset: offset, from: device.id)
        case .clipboardData(let request, let answer): received(answer, for: request, from: device.id)
        default: break
        }
    }

    func deviceChanged(_ device: PeerDevice, _ change: PeerDeviceChange) {
        switch change {
        case .linked, .paired:
            announce(to: device.id)
        case .unlinked(let reason), .unpaired(let reason):
            announcement?.devices.remove(device.id)
            readCopies[device.id] = nil
            if promise?.deviceID == device.id { endPromise() }
            failFetches(of: device.id, .unavailable(reason))
        case .renamed:
            break
        }
    }

    func holdsState(for deviceID: String) -> Bool {
        fetches.values.contains { $0.deviceID == deviceID } || served[deviceID, default: 0] > 0
    }

    /// The settings changed: a promise of a device no longer taking part is withdrawn, and
    /// this device's announcement withdrawn from such devices for good; a device taking part
    /// again hears of the next copy, not of one made while it was not.
    func policyChanged() {
        if let promise, !sharesClipboard(with: promise.deviceID) { endPromise() }
        guard let live = announcement else { return }
        for deviceID in network.paired.devices.keys where !sharesClipboard(with: deviceID) {
            announcement?.withheld.insert(deviceID)
            readCopies[deviceID] = nil
            guard live.devices.contains(deviceID) else { continue }
            network.send(.clipboardWithdraw(token: live.offer.token), to: deviceID, needing: PeerCapability.clipboard)
            announcement?.devices.remove(deviceID)
        }
    }

    /// A line for `baton status` and `baton doctor`: the live announcement and promise, types only.
    var summary: String {
        var parts: [String] = []
        if let announcement {
            parts.append("this device's copy (\(announcement.offer.types.joined(separator: ", "))) offered to \(announcement.devices.count) devices")
        }
        if let promise {
            parts.append("a copy of \(network.deviceName(promise.deviceID)) (\(promise.types.joined(separator: ", "))) ready to paste")
        }
        for fetch in fetches.values.sorted(by: { $0.received > $1.received }) {
            let total = fetch.total.map { " of \(Self.megabytes(Int($0)))" } ?? ""
            parts.append("pasting \(network.deviceName(fetch.deviceID))'s copy (\(fetch.type)): \(Self.megabytes(fetch.received))\(total)")
        }
        return parts.isEmpty ? "nothing copied lately" : parts.joined(separator: "; ")
    }

    /// `bytes` in megabytes, one decimal.
    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    // MARK: This device's copies

    /// An app here copied: the promise of another device ends (this copy wins), and the copy
    /// is announced unless it is secret or has nothing to announce; an announcement it
    /// replaces without one of its own is withdrawn.
    ///
    /// Not announced either, so that no copy goes back and forth between devices: a device's
    /// promise (another batond's on this display), and a copy of what was just pasted from the
    /// promise, with its types, within ``repeatedPasteWindow`` (a clipboard manager keeping
    /// the content, as X11's do the moment a copy is made).
    private func copied(_ content: ClipboardContent) {
        if content.isPromise {
            network.logger.debug("the clipboard holds a device's promise: it is not announced again")
            promise = nil
            return
        }
        if let promise, let pasted = lastPaste, Date().timeIntervalSince(pasted) < Self.repeatedPasteWindow,
           Set(Self.announceable(content.types)).isSubset(of: promise.types) {
            network.logger.info("what was just pasted from \(network.deviceName(promise.deviceID))'s copy was copied again here: it is not announced back")
            self.promise = nil
            return
        }
        if promise != nil {
            network.logger.info("a copy on this device replaced \(network.deviceName(promise?.deviceID ?? ""))'s")
            promise = nil
        }
        copies += 1
        if content.isSecret {
            withdrawAnnouncement()
            return network.logger.info("a copy marked secret is not announced")
        }
        if let listType = CopiedFiles.listTypes.first(where: content.types.contains), let clipboard {
            let copy = copies
            Task { @MainActor in
                let list = try? await clipboard.read(listType, limit: CopiedFiles.maximumListSize)
                guard copies == copy else { return }
                // A list that cannot be read is not announced: it could name local files.
                guard let list else { return announce(Self.announceable(content.types), files: nil) }
                announceList(CopiedFiles.paths(inList: list, type: listType), types: content.types)
            }
            return
        }
        announce(Self.announceable(content.types), files: nil)
    }

    /// Announces a copy whose types include a file list: a list of local files as
    /// ``PeerClipboardFiles/announcedType`` (when each may be offered), anything else (links)
    /// with its types as they are.
    private func announceList(_ paths: [String]?, types: [String]) {
        guard let paths else { return announce(Self.announceable(types, withFileLists: true), files: nil) }
        do {
            let files = try CopiedFiles(paths: paths, home: XDGDirectories.home.path)
            announce([PeerClipboardFiles.announcedType], files: files)
        } catch {
            withdrawAnnouncement()
            network.logger.info("copied files are not announced: \(error)")
        }
    }

    /// Announces a copy as `types` to the paired devices the clipboard is shared with, in
    /// place of the last; with no types, withdraws the last.
    private func announce(_ types: [String], files: CopiedFiles?) {
        withdrawAnnouncement()
        guard !types.isEmpty else { return }
        let withheld = Set(network.paired.devices.keys.filter { !sharesClipboard(with: $0) })
        guard network.paired.devices.isEmpty || withheld.count < network.paired.devices.count else {
            return network.logger.debug("a copy is not announced: the clipboard is shared with no device now")
        }
        let offer = PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: types.map { .init(type: $0) },
                                       lifetime: UInt32(max(1, min(Double(PeerClipboardOffer.maximumLifetime), lifetime.rounded(.up)))))
        announcement = Announcement(offer: offer, expires: Date().addingTimeInterval(Double(offer.lifetime)), devices: [],
                                    withheld: withheld, files: files)
        for deviceID in network.paired.devices.keys { announce(to: deviceID) }
        let what = files.map { "\($0.files.count) files" } ?? types.joined(separator: ", ")
        network.logger.info("announced a copy (\(what)) to \(announcement?.devices.count ?? 0) devices")
        armExpiry()
    }

    /// The types of `types` a copy is announced with: clipboard types (``PeerClipboardOffer/isType(_:)``),
    /// without the secret hints, Baton's own types and file lists (unless `withFileLists`: a
    /// list of links), each once, at most ``PeerClipboardOffer/maximumTypes``.
    static func announceable(_ types: [String], withFileLists: Bool = false) -> [String] {
        var kept: [String] = []
        for type in types where PeerClipboardOffer.isType(type) && !kept.contains(type)
            && (withFileLists || !CopiedFiles.listTypes.contains(type.lowercased()))
            && !type.lowercased().hasPrefix("application/x-baton-") && !type.lowercased().contains("passwordmanagerhint") {
            kept.append(type)
        }
        return Array(kept.prefix(PeerClipboardOffer.maximumTypes))
    }

    /// Announces the live copy to `deviceID` when it takes part and has not been told, for the
    /// seconds left.
    private func announce(to deviceID: String) {
        guard let live = announcement, !live.devices.contains(deviceID), !live.withheld.contains(deviceID),
              sharesClipboard(with: deviceID) else { return }
        let left = live.expires.timeIntervalSinceNow.rounded(.up)
        guard left >= 1 else { return }
        var offer = live.offer
        offer.lifetime = UInt32(min(left, Double(offer.lifetime)))
        if network.send(.clipboardOffer(offer), to: deviceID, needing: PeerCapability.clipboard) {
            announcement?.devices.insert(deviceID)
        }
    }

    /// Withdraws the live copy from the devices told of it.
    private func withdrawAnnouncement() {
        readCopies = [:]
        guard let live = announcement else { return }
        announcement = nil
        for deviceID in live.devices {
            network.send(.clipboardWithdraw(token: live.offer.token), to: deviceID, needing: PeerCapability.clipboard)
        }
    }

    /// Answers a paired device's paste: the current copy's `type`, read now (the first
    /// window) or kept from that read (the next), one window from `offset` in parts.
    private func answer(_ request: UInt32, token: String, type: String, offset: UInt32, from deviceID: String) {
        let refusal: PeerClipboardFailure? = if !sharesClipboard(with: deviceID) {
            .refused
        } else if announcement?.offer.token != token || (announcement?.expires ?? .distantPast) <= Date() {
            .expired
        } else if announcement?.offer.types.contains(type) != true
                    && !(announcement?.files != nil && PeerClipboardFiles.fileIndex(of: type) != nil) {
            .typeNotOffered
        } else if served[deviceID, default: 0] >= Self.maximumFetchesServed {
            .busy
        } else if clipboard == nil {
            .unreadable
        } else {
            nil
        }
        if let refusal {
            network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) asked for a copy as \(type): \(refusal)")
            network.send(.clipboardData(request: request, .failed(refusal)), to: deviceID)
            return
        }
        if let files = announcement?.files { return answer(request, files: files, type: type, offset: offset, to: deviceID) }
        guard offset == 0 else { return answerNextWindow(request, token: token, type: type, offset: offset, to: deviceID) }
        guard let clipboard else { return }
        served[deviceID, default: 0] += 1
        Task { @MainActor in
            defer {
                served[deviceID, default: 1] -= 1
                if served[deviceID] == 0 { served[deviceID] = nil }
                network.discardIfIdle(deviceID)
            }
            do {
                let bytes = try await clipboard.read(type, limit: PeerClipboardOffer.maximumDataSize)
                guard bytes.count <= PeerClipboardOffer.maximumDataSize else { throw ClipboardError.tooLarge(limit: PeerClipboardOffer.maximumDataSize) }
                guard announcement?.offer.token == token else { throw ClipboardError.changed }
                if bytes.count > PeerClipboardOffer.maximumWindow { readCopies[deviceID] = (token, type, bytes) }
                for part in PeerClipboardAnswer.parts(of: bytes) {
                    network.send(.clipboardData(request: request, part), to: deviceID)
                }
                network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) pasted this device's copy: \(bytes.count) bytes of \(type)")
            } catch {
                let failure: PeerClipboardFailure = switch error as? ClipboardError {
                case .tooLarge: .tooLarge
                case .typeNotOffered: .typeNotOffered
                default: .unreadable
                }
                network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) asked for a copy as \(type): \(error)")
                network.send(.clipboardData(request: request, .failed(failure)), to: deviceID)
            }
        }
    }

    /// Answers a fetch of a window after the first, from the copy read for the first; a
    /// device with no such copy kept (another paste since, or the copy replaced) is told the
    /// copy is unreadable.
    private func answerNextWindow(_ request: UInt32, token: String, type: String, offset: UInt32, to deviceID: String) {
        guard let copy = readCopies[deviceID], copy.token == token, copy.type == type, Int(offset) < copy.bytes.count else {
            network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) asked for a copy as \(type) from byte \(offset), which was not read for it")
            network.send(.clipboardData(request: request, .failed(.unreadable)), to: deviceID)
            return
        }
        for part in PeerClipboardAnswer.parts(of: copy.bytes, from: Int(offset)) {
            network.send(.clipboardData(request: request, part), to: deviceID)
        }
        if Int(offset) + PeerClipboardOffer.maximumWindow >= copy.bytes.count { readCopies[deviceID] = nil }
    }

    // MARK: Other devices' copies

    /// A paired device's announcement: this device's clipboard promises its types, in place
    /// of any earlier promise.
    private func take(_ offer: PeerClipboardOffer, from deviceID: String) {
        guard offerRate.allow(deviceID, now: ProcessInfo.processInfo.systemUptime) else {
            if throttled.insert(deviceID).inserted {
                // Outside the device's log budget, which the copies it announced may have spent:
                // once until one of its announcements is taken again.
                network.logger.notice("\(network.deviceName(deviceID)) announces more than \(Self.maximumOffersPerMinute) copies a minute: the others are dropped")
            }
            return
        }
        throttled.remove(deviceID)
        guard sharesClipboard(with: deviceID), let clipboard else {
            network.log(.debug, from: deviceID, "\(network.deviceName(deviceID)) announced a copy, which is not taken: the clipboard is not shared with it here")
            return
        }
        // The clipboard here no longer holds this device's own copy: it is no longer offered.
        copies += 1
        withdrawAnnouncement()
        let seconds = min(Double(offer.lifetime), lifetime)
        promise = (deviceID, offer.token, offer.types, Date().addingTimeInterval(seconds))
        let token = offer.token
        let files = offer.types.contains(PeerClipboardFiles.announcedType)
        let types = files ? CopiedFiles.listTypes : offer.types
        clipboard.promise(types) { [weak self] type in
            guard let self else { throw ClipboardError.unavailable("batond is stopping") }
            guard files else { return try await self.fetch(type, token: token, from: deviceID) }
            return CopiedFiles.list(of: try await self.receiveFiles(token: token, from: deviceID), as: type)
        }
        network.log(.info, from: deviceID, "\(network.deviceName(deviceID)) announced a copy (\(offer.types.joined(separator: ", "))) for \(Int(seconds)) s")
        armExpiry()
    }

    /// Ends the promise this device's clipboard holds.
    private func endPromise() {
        guard promise != nil else { return }
        promise = nil
        receivedFiles = nil
        clipboard?.withdraw()
        armExpiry()
    }

    /// The content of the promise `token` of `deviceID` as `type`, fetched now for a paste here.
    ///
    /// - Throws: ``ClipboardError``: `changed` when the promise is no longer current,
    ///   `unavailable` when the device is not linked or refused, `typeNotOffered`, `tooLarge`,
    ///   `timedOut` after the network's fetch timeout.
    func fetch(_ type: String, token: String, from deviceID: String) async throws -> [UInt8] {
        guard let promise, promise.token == token, promise.deviceID == deviceID, promise.expires > Date() else {
            throw ClipboardError.changed
        }
        guard promise.types.contains(type) else { throw ClipboardError.typeNotOffered(type) }
        return try await fetchWindows(type, token: token, from: deviceID, into: nil)
    }

    /// Fetches `type` of the promise `token` of `deviceID` window by window, each within the
    /// network's fetch timeout: handed window by window to `sink` when there is one (and an
    /// empty array returned), else gathered and returned whole.
    func fetchWindows(_ type: String, token: String, from deviceID: String,
                      into sink: ((ArraySlice<UInt8>) throws -> Void)?) async throws -> [UInt8] {
        guard network.isLinked(deviceID), network.supports(PeerCapability.clipboard, deviceID) else {
            throw ClipboardError.unavailable("\(network.deviceName(deviceID)) is not connected")
        }
        let request = network.nextRequest
        network.nextRequest &+= 1
        let timeout = network.fetchTimeout
        let started = Date()
        fetches[request] = PendingFetch(deviceID: deviceID, type: type)
        var result: Result<[UInt8], ClipboardError>
        // Window by window, each within the fetch timeout, until the content is whole.
        while true {
            let offset = UInt32(fetches[request]?.received ?? 0)
            let window = await TimedWait.value(timeout: timeout) { (finish: @escaping @MainActor (Result<Void, ClipboardError>) -> Void) in
                fetches[request]?.windowStart = offset
                fetches[request]?.finishWindow = finish
                network.send(.clipboardFetch(request: request, token: token, type: type, offset: offset), to: deviceID,
                             needing: PeerCapability.clipboard)
            } ?? .failure(.timedOut)
            guard let pending = fetches[request] else {
                result = .failure(.changed)
                break
            }
            if case .failure(let error) = window {
                result = .failure(error)
                break
            }
            if let sink {
                do {
                    try sink(pending.bytes[...])
                } catch {
                    result = .failure(.unavailable("\(error)"))
                    break
                }
                fetches[request]?.bytes = []
            }
            if let total = pending.total, pending.received == Int(total) {
                result = .success(sink == nil ? pending.bytes : [])
                break
            }
        }
        let size = fetches.removeValue(forKey: request)?.received ?? 0
        network.discardIfIdle(deviceID)
        switch result {
        case .success:
            lastPaste = Date()
            network.log(.info, from: deviceID, "pasted \(network.deviceName(deviceID))'s copy: \(size) bytes of \(type) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        case .failure(let error):
            network.log(.info, from: deviceID, "pasting \(network.deviceName(deviceID))'s copy as \(type) failed: \(error)")
        }
        return try result.get()
    }

    /// A part of a fetch's answer, or its failure: the window being answered ends with the
    /// failure, a part out of order, or its last part.
    private func received(_ answer: PeerClipboardAnswer, for request: UInt32, from deviceID: String) {
        guard var fetch = fetches[request], fetch.deviceID == deviceID, let finish = fetch.finishWindow else { return }
        switch answer {
        case .failed(let failure):
            fetch.finishWindow = nil
            fetches[request] = fetch
            finish(.failure(failure == .tooLarge ? .tooLarge(limit: PeerClipboardOffer.maximumDataSize)
                            : .unavailable("\(network.deviceName(deviceID)): \(failure)")))
        case .part(let offset, let total, let bytes):
            guard offset == fetch.received, fetch.total.map({ $0 == total }) ?? true else {
                fetch.finishWindow = nil
                fetches[request] = fetch
                network.log(.notice, from: deviceID, "\(network.deviceName(deviceID)) sent a copy's parts out of order")
                return finish(.failure(.unavailable("\(network.deviceName(deviceID)) sent the copy out of order")))
            }
            fetch.total = total
            fetch.bytes += bytes
            fetch.received += bytes.count
            let ended = answer.endsWindow(from: fetch.windowStart)
            if ended { fetch.finishWindow = nil }
            fetches[request] = fetch
            if ended { finish(.success(())) }
        }
    }

    private func failFetches(of deviceID: String, _ error: ClipboardError) {
        for (request, fetch) in fetches where fetch.deviceID == deviceID {
            fetches[request]?.finishWindow = nil
            fetch.finishWindow?(.failure(error))
        }
    }

    // MARK: Expiry

    private func armExpiry() {
        expiry.arm(for: [announcement?.expires, promise?.expires].compactMap { $0 })
    }

    /// Ends what expired: this device's announcement (withdrawn from the devices told) and
    /// the promise of another's.
    private func expire() {
        let now = Date()
        if let live = announcement, live.expires <= now {
            network.logger.info("this device's copy is no longer offered: \(Int(live.offer.lifetime)) s passed")
            withdrawAnnouncement()
        }
        if let promise, promise.expires <= now {
            network.log(.info, from: promise.deviceID, "\(network.deviceName(promise.deviceID))'s copy expired")
            endPromise()
        }
        armExpiry()
    }

    private func sharesClipboard(with deviceID: String) -> Bool {
        network.isPaired(deviceID) && (network.delegate?.sharesClipboard(with: deviceID) ?? false)
    }
}
