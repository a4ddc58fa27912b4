import BatonBus
import BatonGLib
import CGLib
import Foundation

/// An app that claims activity types for its team: registered or installed.
protocol ActivityClaimant {
    var teamID: String { get }
    func claims(_ activityType: String) -> Bool
}

extension ActivityClaimant {
    /// Whether it continues `activityType` from an app of team `teamID` (any team when `nil`).
    func continues(_ activityType: String, forTeam teamID: String?) -> Bool {
        claims(activityType) && (teamID == nil || self.teamID == teamID)
    }
}

/// An app connected to batond: what it registered, and its current activity.
struct RegisteredApp: ActivityClaimant, Sendable {
    /// The app's unique name on the bus, where its `org.baton.Application1` object lives.
    let busName: String
    let appID: String
    let teamID: String
    let activityTypes: Set<String>
    var pid: Int64?
    var current: PublishedActivity?

    func claims(_ activityType: String) -> Bool { activityTypes.contains(activityType) }
}

/// An app's current activity as batond lists it.
struct PublishedActivity: Sendable {
    /// The id batond lists it under.
    let listingID: String
    /// The id the app knows it by.
    let appActivityID: String
    var summary: ActivitySummary
    var publishedAt: Date
}

/// The apps registered with batond, keyed by their unique bus names.
///
/// An app's registration ends when its connection leaves the bus; code waiting for an app
/// to register (after a launch) is woken by ``register(_:)``.
@MainActor
final class AppRegistry {
    private(set) var apps: [String: RegisteredApp] = [:]
    private var registrationWaiters: [UUID: (appID: String, wake: (RegisteredApp) -> Void)] = [:]
    /// Called when the list of current activities changes, an activity's expiry included.
    var onChange: () -> Void = {}
    private lazy var expiry = ExpiryTimer { [weak self] in self?.changed() }

    /// The most apps a session can have registered, and types one app can claim.
    static let maximumApps = 512
    static let maximumActivityTypes = 256

    /// Registers (or re-registers) the app on `busName`, checking what it claims.
    func register(busName: String, appID: String, teamID: String, activityTypes: [String]) throws {
        guard g_application_id_is_valid(appID) != 0 else {
            throw ServiceError.invalidArguments("invalid application id \"\(appID.prefix(80))\"")
        }
        guard !teamID.isEmpty, teamID.utf8.count <= 255,
              !teamID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError.invalidArguments("the team id must be 1 to 255 printable characters")
        }
        guard activityTypes.count <= Self.maximumActivityTypes else {
            throw ServiceError.invalidArguments("at most \(Self.maximumActivityTypes) activity types per app")
        }
        for type in activityTypes { try ActivitySummary.checkActivityType(type) }
        guard apps[busName] != nil || apps.count < Self.maximumApps else {
            throw ServiceError.invalidArguments("too many registered apps")
        }
        let previous = apps[busName]
        let app = RegisteredApp(busName: busName, appID: appID, teamID: teamID,
                                activityTypes: Set(activityTypes), pid: previous?.pid,
                                current: previous?.current)
        apps[busName] = app
        for (id, waiter) in registrationWaiters where waiter.appID == appID {
            registrationWaiters[id] = nil
            waiter.wake(app)
        }
    }

    func setPID(_ pid: Int64, for busName: String) {
        apps[busName]?.pid = pid
    }

    /// The app on `busName`, or ``ServiceError/notRegistered``.
    func app(_ busName: String) throws -> RegisteredApp {
        guard let app = apps[busName] else { throw ServiceError.notRegistered }
        return app
    }

    /// Records the app's current activity; a new app activity id gets a new listing id.
    func publish(busName: String, appActivityID: String, summary: ActivitySummary) throws {
        var app = try app(busName)
        guard !appActivityID.isEmpty, appActivityID.utf8.count <= 128 else {
            throw ServiceError.invalidArguments("the activity id must be 1 to 128 bytes")
        }
        let listingID = app.current.flatMap { $0.appActivityID == appActivityID ? $0.listingID : nil } ?? ListingID.make()
        app.current = PublishedActivity(listingID: listingID, appActivityID: appActivityID,
                                        summary: summary, publishedAt: Date())
        apps[busName] = app
        changed()
    }

    func resign(busName: String) throws {
        var app = try app(busName)
        guard app.current != nil else { return }
        app.current = nil
        apps[busName] = app
        changed()
    }

    /// Forgets an app whose connection left the bus.
    func remove(busName: String) {
        guard let app = apps.removeValue(forKey: busName) else { return }
        if app.current != nil { changed() }
    }

    /// Tells of a change, and arms the timer for the next current activity to expire, which
    /// is a change too: it is no longer listed or offered.
    private func changed() {
        expiry.arm(for: apps.values.compactMap { $0.current?.summary.expirationDate })
        onChange()
    }

    /// The app and activity listed under `listingID`.
    func published(_ listingID: String) -> (RegisteredApp, PublishedActivity)? {
        for app in apps.values {
            if let current = app.current, current.listingID == listingID { return (app, current) }
        }
        return nil
    }

    /// Current activities that may be listed, offered and continued: eligible and unexpired,
    /// the most recently published first.
    var offerable: [(RegisteredApp, PublishedActivity)] {
        apps.values.compactMap { app in app.current.map { (app, $0) } }
            .filter { $0.1.summary.isEligibleForHandoff && !$0.1.summary.isExpired() }
            .sorted { $0.1.publishedAt > $1.1.publishedAt }
    }

    /// The most recently published current activity: the one the user touched last.
    var latest: (RegisteredApp, PublishedActivity)? {
        apps.values.compactMap { app in app.current.map { (app, $0) } }
            .max { $0.1.publishedAt < $1.1.publishedAt }
    }

    /// Waits for an app with `appID` to register, up to `timeout` seconds.
    func waitForRegistration(of appID: String, timeout: Double) async -> RegisteredApp? {
        let id = UUID()
        defer { registrationWaiters[id] = nil }
        return await TimedWait.value(timeout: timeout) { wake in
            registrationWaiters[id] = (appID, { wake($0) })
        }
    }
}

/// Opaque ids for listed activities and offers: 12 lowercase hex digits.
enum ListingID {
    static func make() -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
    }
}
