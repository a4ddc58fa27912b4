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

/// An app connected to batond: what it registered, who it is, and its current activity.
struct RegisteredApp: ActivityClaimant, Sendable {
    /// The app's unique name on the bus, where its `org.baton.Application1` object lives.
    let busName: String
    let appID: String
    let teamID: String
    let activityTypes: Set<String>
    /// The process behind the connection, as the bus daemon said.
    let pid: Int32
    /// Whether the process is the app it says, and which claims its desktop entry backs.
    let identity: AppIdentity
    /// The registered types the app is verified for (``AppIdentity/verifiedActivityTypes(teamID:activityTypes:)``):
    /// only these of its claims bring it another device's activities, or put it before
    /// installed apps.
    let verifiedActivityTypes: Set<String>
    /// When the connection first registered.
    let registeredAt: Date
    /// The order of first registrations: 1 for the first app batond saw, and so on.
    let registrationNumber: UInt64
    /// When the app was last active: when one of its windows last became the active window
    /// (`SetActive`), or, for an app that does not say (``reportsActivation``), when it last
    /// published its current activity. `nil` until then.
    var lastActiveAt: Date?
    /// Whether the app says when its windows become active (`SetActive`).
    var reportsActivation = false
    /// Whether one of its windows is the desktop's active window, as it last said.
    var isActive = false
    var current: PublishedActivity?

    /// Whether the process is the app of its id (``AppIdentity``), whatever it claims.
    var isVerified: Bool { identity.isVerified }

    func claims(_ activityType: String) -> Bool { activityTypes.contains(activityType) }

    /// Whether the app is verified for `activityType`: it is the app of its id, and its
    /// desktop entry declares the type for the team it registered.
    func isVerified(for activityType: String) -> Bool { verifiedActivityTypes.contains(activityType) }

    /// The VERIFIED column of `baton apps` (`verified-state` in `ListApps`): `yes` when the
    /// app is verified for every type it registered, `partly` when for some of them, else `no`.
    var verifiedState: String {
        if activityTypes.isEmpty { return isVerified ? "yes" : "no" }
        if verifiedActivityTypes.isEmpty { return "no" }
        return verifiedActivityTypes == activityTypes ? "yes" : "partly"
    }

    /// What `ListApps` and `baton apps` say of the app's verification: `verified`, the
    /// claims its entry does not back, or why the process is not verified.
    var verification: String {
        guard identity.isVerified else { return identity.detail }
        if verifiedActivityTypes == activityTypes { return "verified" }
        guard let declared = identity.declaredClaims else {
            return "verified app, but its entry declares no X-Baton-TeamID and X-Baton-ActivityTypes"
        }
        guard declared.teamID == teamID else {
            return "verified app, but its entry declares team \(declared.teamID), not \(teamID)"
        }
        let undeclared = activityTypes.subtracting(verifiedActivityTypes).sorted()
        return "verified for \(verifiedActivityTypes.count) of \(activityTypes.count) activity types; "
            + "its entry does not declare " + undeclared.joined(separator: ", ")
    }

    /// Whether this app goes before `other` when both could continue an activity: the most
    /// recently active first (one that never published after all that did), then the one
    /// that registered first. Never by bus name.
    func isPreferred(over other: RegisteredApp) -> Bool {
        switch (lastActiveAt, other.lastActiveAt) {
        case let (mine?, theirs?) where mine != theirs: return mine > theirs
        case (.some, nil): return true
        case (nil, .some): return false
        default: return registrationNumber < other.registrationNumber
        }
    }

    /// Whether this app goes before `other` to continue an activity whose origin app is
    /// `originAppID`: the app of that id first, then ``isPreferred(over:)``.
    func isPreferred(over other: RegisteredApp, originAppID: String?) -> Bool {
        if let originAppID, (appID == originAppID) != (other.appID == originAppID) { return appID == originAppID }
        return isPreferred(over: other)
    }
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
/// to register (after a launch) is woken by ``register(busName:appID:teamID:activityTypes:pid:identity:)``.
@MainActor
final class AppRegistry {
    private(set) var apps: [String: RegisteredApp] = [:]
    private var registrationWaiters: [UUID: (accepts: (RegisteredApp) -> Bool, wake: (RegisteredApp) -> Void)] = [:]
    private var registrations: UInt64 = 0
    /// Called when the list of current activities changes, an activity's expiry included.
    var onChange: () -> Void = {}
    /// Called when an app registers or leaves.
    var onAppsChanged: () -> Void = {}
    private lazy var expiry = ExpiryTimer { [weak self] in self?.changed() }

    /// The most verified apps a session can have registered. Unverified apps have their own,
    /// lower limit, so they can never keep a verified app out.
    static let maximumApps = 512
    /// The most unverified apps a session can have registered.
    static let maximumUnverifiedApps = 64
    /// The most registrations (connections) one process can have.
    static let maximumRegistrationsPerProcess = 8
    /// The most types one app can claim.
    static let maximumActivityTypes = 256
    /// The longest id an app publishes its current activity under (BatonGtk's are UUIDs, 36
    /// bytes). The summary's own limits are ``ActivityLimits``, checked by
    /// ``ActivitySummary/init(record:)``.
    static let maximumActivityIDLength = 128

    /// Checks what an app registers: a valid application id, a printable team id, and at
    /// most ``maximumActivityTypes`` valid activity types (``ActivityLimits/isValidActivityType(_:)``).
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)``.
    static func check(appID: String, teamID: String, activityTypes: [String]) throws {
        guard g_application_id_is_valid(appID) != 0 else {
            throw ServiceError.invalidArguments("invalid application id \"\(appID.prefix(80))\"")
        }
        guard !teamID.isEmpty, teamID.utf8.count <= 255,
              !teamID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError.invalidArguments("the team id must be 1 to 255 printable characters")
        }
        guard activityTypes.count <= maximumActivityTypes else {
            throw ServiceError.invalidArguments("at most \(maximumActivityTypes) activity types per app")
        }
        for type in activityTypes { try ActivitySummary.checkActivityType(type) }
    }

    /// Registers (or re-registers) the app on `busName`, run by process `pid`, checking what
    /// it claims and the limits; changes nothing when it throws. The app is verified for the
    /// claims its `identity` backs, and unverified for the others.
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` or ``ServiceError/limitExceeded(_:)``.
    @discardableResult
    func register(busName: String, appID: String, teamID: String, activityTypes: [String], pid: Int32,
                  identity: AppIdentity) throws -> RegisteredApp {
        let isVerified = identity.isVerified
        try Self.check(appID: appID, teamID: teamID, activityTypes: activityTypes)
        let others = apps.values.filter { $0.busName != busName }
        guard others.filter({ $0.pid == pid }).count < Self.maximumRegistrationsPerProcess else {
            throw ServiceError.limitExceeded("process \(pid) already has \(Self.maximumRegistrationsPerProcess) "
                + "registrations, the most one process may have")
        }
        if isVerified {
            guard others.filter(\.isVerified).count < Self.maximumApps else {
                throw ServiceError.limitExceeded("too many registered apps (at most \(Self.maximumApps))")
            }
        } else {
            guard others.filter({ !$0.isVerified }).count < Self.maximumUnverifiedApps else {
                throw ServiceError.limitExceeded("too many unverified apps are registered (at most "
                    + "\(Self.maximumUnverifiedApps)); an app running the program its desktop entry names is verified and not counted")
            }
        }
        let previous = apps[busName]
        if previous == nil { registrations += 1 }
        let app = RegisteredApp(busName: busName, appID: appID, teamID: teamID, activityTypes: Set(activityTypes),
                                pid: pid, identity: identity,
                                verifiedActivityTypes: identity.verifiedActivityTypes(teamID: teamID, activityTypes: activityTypes),
                                registeredAt: previous?.registeredAt ?? Date(),
                                registrationNumber: previous?.registrationNumber ?? registrations,
                                lastActiveAt: previous?.lastActiveAt, reportsActivation: previous?.reportsActivation ?? false,
                                isActive: previous?.isActive ?? false, current: previous?.current)
        apps[busName] = app
        onAppsChanged()
        for (id, waiter) in registrationWaiters where waiter.accepts(app) {
            registrationWaiters[id] = nil
            waiter.wake(app)
        }
        return app
    }

    /// The app on `busName`, or ``ServiceError/notRegistered``.
    func app(_ busName: String) throws -> RegisteredApp {
        guard let app = apps[busName] else { throw ServiceError.notRegistered }
        return app
    }

    /// The running apps that continue `type` for `teamID`, the preferred first
    /// (``RegisteredApp/isPreferred(over:originAppID:)``): those verified for the type, then
    /// the others.
    ///
    /// - Parameters:
    ///   - origin: the bus name of the app the activity comes from, left out.
    ///   - originAppID: the app id of the app the activity comes from, preferred.
    func claimants(of type: String, teamID: String?, excluding origin: String?,
                   originAppID: String? = nil) -> (verified: [RegisteredApp], unverified: [RegisteredApp]) {
        let sorted = apps.values
            .filter { $0.continues(type, forTeam: teamID) && $0.busName != origin }
            .sorted { $0.isPreferred(over: $1, originAppID: originAppID) }
        return (sorted.filter { $0.isVerified(for: type) }, sorted.filter { !$0.isVerified(for: type) })
    }

    /// Records the app's current activity; a new app activity id gets a new listing id.
    func publish(busName: String, appActivityID: String, summary: ActivitySummary) throws {
        var app = try app(busName)
        guard !appActivityID.isEmpty, appActivityID.utf8.count <= Self.maximumActivityIDLength else {
            throw ServiceError.invalidArguments("the activity id must be 1 to \(Self.maximumActivityIDLength) bytes")
        }
        let listingID = app.current.flatMap { $0.appActivityID == appActivityID ? $0.listingID : nil } ?? ListingID.make()
        let now = Date()
        app.current = PublishedActivity(listingID: listingID, appActivityID: appActivityID,
                                        summary: summary, publishedAt: now)
        if !app.reportsActivation { app.lastActiveAt = now }
        apps[busName] = app
        changed()
    }

    /// Records that one of the app's windows became the active window (`active`), or that
    /// none is any more.
    func setActive(busName: String, _ active: Bool) throws {
        var app = try app(busName)
        app.reportsActivation = true
        app.isActive = active
        if active { app.lastActiveAt = Date() }
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
        onAppsChanged()
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

    /// The activity this device offers its other devices, as Handoff does: the current
    /// activity of the app the person used last (the most recently active, see
    /// ``RegisteredApp/lastActiveAt``), if it may be offered; none when that app has no such
    /// activity. Until an app has been active, the most recently published one.
    var offered: (RegisteredApp, PublishedActivity)? {
        let used = apps.values.filter { $0.lastActiveAt != nil }
        guard let foreground = used.max(by: { ($0.lastActiveAt ?? .distantPast) < ($1.lastActiveAt ?? .distantPast) })
        else { return offerable.first }
        return offerable.first { $0.0.busName == foreground.busName }
    }

    /// This device's current activity, which `baton status`, `inspect` and `send current`
    /// name, eligible or not: that of the app the person used last (``RegisteredApp/lastActiveAt``)
    /// among the apps that have one; of apps never active, the most recently published. An
    /// app that publishes while another app's window is active (its own main window changed
    /// when one of its windows closed) does not take it.
    var current: (RegisteredApp, PublishedActivity)? {
        apps.values.compactMap { app in app.current.map { (app, $0) } }
            .max { ($0.0.lastActiveAt ?? .distantPast, $0.1.publishedAt) < ($1.0.lastActiveAt ?? .distantPast, $1.1.publishedAt) }
    }

    /// Waits for an app that `accepts` approves of to register, up to `timeout` seconds.
    func waitForRegistration(timeout: Double, accepting accepts: @escaping (RegisteredApp) -> Bool) async -> RegisteredApp? {
        let id = UUID()
        defer { registrationWaiters[id] = nil }
        return await TimedWait.value(timeout: timeout) { wake in
            registrationWaiters[id] = (accepts, { wake($0) })
        }
    }
}

/// Opaque ids for listed activities and offers: 12 lowercase hex digits.
enum ListingID {
    static func make() -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
    }
}
