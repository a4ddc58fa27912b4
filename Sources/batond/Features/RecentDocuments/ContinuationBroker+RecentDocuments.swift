import Baton
import BatonBus
import Foundation

/// The continuing half of a document from another device's recent list: no app here adopts
/// Baton for it, so batond itself places the file (the same path, the Syncthing copy, or a
/// copy over the link, as for any continued document) and opens it in the same app.
extension ContinuationBroker {
    /// Continues `source`, a document of another device's recent list: fetches it, places its
    /// file here and opens it in the app that used it there (``DocumentOpener``).
    ///
    /// - Throws: ``ServiceError/activity(_:)`` when it cannot be fetched, its file cannot be
    ///   placed, or no app here opens it; a copy made for it is removed again.
    func continueRecentDocument(_ source: ActivitySource, activationToken: String?) async throws {
        guard case .offer(let offer) = source, let deviceID = offer.peerDeviceID else {
            throw ServiceError.activity(.handoffFailed("a document of the recent list continues only from another device"))
        }
        let fetched = try await fetchPayload(source)
        let logger = logger
        // No app shows the progress; the log says only that it waits, not the file's name.
        var waitLogged = false
        let placed = try await placeDocument(of: fetched, source: source) { _, _ in
            if !waitLogged { logger.info("continuing a recent document from \(offer.device): waiting for its file") }
            waitLogged = true
            return !Task.isCancelled
        }
        do {
            let payload = try Self.decode(placed.bytes)
            guard let url = UserActivity.documentURL(in: payload.userInfo), url.isFileURL else {
                throw ServiceError.activity(.handoffFailed("the document from \(offer.device) names no file"))
            }
            // The other device's word chooses only among the apps this device lists for the
            // file's own type (``DocumentOpener``): its MIME type is not used here.
            let program = Self.text(payload.userInfo[RecentDocuments.programKey])
            let app = try await DocumentOpener.open(url, program: program, activationToken: activationToken)
            logger.info("opened a document continued from \(offer.device) in \(app.id)")
        } catch {
            if let copy = placed.copy { try? FileManager.default.removeItem(at: copy) }
            throw error
        }
        delegate?.continued(offer, from: deviceID)
    }

    private static func text(_ value: UserInfoValue?) -> String? {
        if case .string(let text)? = value, !text.isEmpty { return text }
        return nil
    }
}
