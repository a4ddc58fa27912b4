import Baton
import BatonBus
import BatonGLib
import Foundation

/// Phones paired with KDE Connect, GSConnect or Valent on this desktop, which the current
/// activity's web page can be sent to: what an app puts in a "Send to Phone" menu.
extension HandoffClient {
    /// A phone or tablet the service can send a web page to.
    public struct Phone: Equatable, Sendable {
        /// The service's id for it, for ``sendCurrentActivity(to:)``.
        public let id: String
        /// Its name, for the menu.
        public let name: String
        /// Whether it can be reached now.
        public let isReachable: Bool
    }

    /// The phones paired here, as the service lists them (`ListDevices`, kind `phone` or
    /// `tablet`); none when the service is not running.
    public func phones() async -> [Phone] {
        guard isConnected, let daemon else { return [] }
        do {
            let records = try await daemon.call(.listDevices, timeout: 10)
            return records.compactMap { record in
                guard let kind = record["kind"]?.string, kind == "phone" || kind == "tablet",
                      let id = record["id"]?.string, let name = record["name"]?.string else { return nil }
                return Phone(id: id, name: name, isReachable: record["connected"]?.bool ?? false)
            }
        } catch {
            logger.debug("could not list the phones: \(error)")
            return []
        }
    }

    /// Sends the web page (`UserActivity.webpageURL`) of the app's current activity, as the
    /// service last heard it, to `phone`.
    ///
    /// - Throws: `UserActivityError`: `handoffFailed` when the service is not running or the
    ///   phone cannot be reached, or the service's error (an activity without a web page, a
    ///   phone no longer paired).
    public func sendCurrentActivity(to phone: Phone) async throws {
        guard isConnected, let daemon else {
            throw UserActivityError.handoffFailed("the Baton service is not running")
        }
        do {
            try await daemon.call(.sendToDevice(activityID: "", device: phone.id), timeout: 20)
        } catch {
            throw ServiceError.userActivityError(from: error)
        }
    }
}
