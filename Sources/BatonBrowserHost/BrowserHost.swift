import Baton
import BatonBus
import BatonGLib
import Foundation

/// The browser's link to batond: it registers as ``applicationID``, publishes the page the
/// extension says is in front as the current activity, and saves it when batond asks.
///
/// As a Baton app does (BatonGtk's `HandoffClient`), it follows the owner of
/// `org.baton.Daemon`: it registers again when batond (re)starts, and talks to an owner only
/// once it proved to be batond (`ServiceOwnerCheck`). It never continues activities: batond
/// hands web pages to the app that claims the page's domain, or to the default browser.
@MainActor
final class BrowserHost {
    /// The application id the host registers as, whose desktop entry
    /// (`org.baton.BrowserHost.desktop`) names the host's program.
    static let applicationID = "org.baton.BrowserHost"
    /// The team id in the desktop entry.
    static let teamIdentifier = "org.baton"
    /// The activity types it claims.
    static let activityTypes = [UserActivity.browsingWebType]

    private let connection: BusConnection
    private var serviceOwner: String?
    /// ``serviceOwner`` once it proved to be batond and took the registration.
    private var registeredOwner: String?
    private var hasLoggedAbsence = false

    /// The page in front, as the extension said last.
    private(set) var page: PageActivity?
    /// Whether a browser window has the focus, as the extension said last.
    private(set) var isActive = false
    /// What batond was told last: `nil` after a resignation.
    private var published: PageActivity?
    /// The activation batond was told last (`SetActive`); `nil` before the first.
    private var reportedActive: Bool?
    /// Counts the publishing calls sent, so a failure can tell whether a later one followed.
    private var publications = 0

    init(connection: BusConnection) {
        self.connection = connection
    }

    /// Exports `org.baton.Application1` and starts following batond.
    ///
    /// - Throws: ``BusError`` when the object cannot be exported.
    func start() throws {
        try connection.export(path: BatonService.applicationPath, interface: BatonService.applicationInterface,
                              introspectionXML: BatonService.applicationIntrospectionXML) { [weak self] call in
            self?.handle(call)
        }
        connection.watchName(BatonService.busName, autoStart: true, appeared: { [weak self] owner in
            self?.serviceAppeared(owner)
        }, vanished: { [weak self] in
            self?.serviceVanished()
        })
    }

    // MARK: What the browser says

    /// Takes the extension's newest message.
    func receive(_ input: StandardInputReader.Input) {
        switch input {
        case .message(.page(let url, let title)):
            page = PageActivity(url: url, title: title, following: page)
            isActive = true
        case .message(.none(let active)):
            page = nil
            isActive = active
        case .refused:
            // When in doubt, offer nothing rather than a page that may no longer be in front.
            page = nil
        }
        synchronize()
    }

    /// Resigns the current page and tells batond the browser is not active any more, then
    /// runs `completion` once batond answered (or after `timeout` seconds): before exiting.
    func resignAll(timeout: Double, completion: @escaping @MainActor () -> Void) {
        page = nil
        isActive = false
        guard let owner = registeredOwner, published != nil || reportedActive != false else { return completion() }
        published = nil
        reportedActive = false
        var finished = false
        let finish: @MainActor () -> Void = {
            guard !finished else { return }
            finished = true
            completion()
        }
        send(.resignCurrent, to: owner) { _ in }
        send(.setActive(false), to: owner) { _ in finish() }
        GLibSources.once(after: timeout) { finish() }
    }

    // MARK: Telling batond

    /// Tells batond what changed since it was told last: the activation first when the browser
    /// comes to the front, so that the page is offered as the front app's at once.
    private func synchronize() {
        guard let owner = registeredOwner else { return }
        if isActive && reportedActive != true { reportActivation(to: owner) }
        if page?.id != published?.id || page?.summary != published?.summary {
            publishPage(to: owner)
        }
        if !isActive && reportedActive != false { reportActivation(to: owner) }
    }

    private func reportActivation(to owner: String) {
        let active = isActive
        reportedActive = active
        send(.setActive(active), to: owner) { result in
            if case .failure(let error) = result {
                HostLog.write("could not tell the Baton service whether the browser is in front: \(error)")
            }
        }
    }

    /// Publishes ``page``, or resigns when there is none. If batond refuses a page, the host
    /// resigns, so that batond does not go on offering an earlier one, and tries again only
    /// with the next page or title.
    private func publishPage(to owner: String) {
        published = page
        publications += 1
        let publication = publications
        guard let page else {
            send(.resignCurrent, to: owner) { result in
                if case .failure(let error) = result { HostLog.write("could not resign the current page: \(error)") }
            }
            return
        }
        send(.publishCurrent(id: page.id, summary: page.summary), to: owner) { [weak self] result in
            guard case .failure(let error) = result, let self else { return }
            guard publication == self.publications, self.registeredOwner == owner else { return }
            HostLog.write("the Baton service refused the page, so it is not offered: \(error)")
            self.send(.resignCurrent, to: owner) { _ in }
        }
    }

    /// Makes `call` of batond, sent before this returns, so calls reach batond in order.
    private func send(_ call: DaemonCall<Void>, to owner: String,
                      completion: @escaping @MainActor (Result<Void, any Error>) -> Void) {
        DaemonClient(connection: connection, destination: owner).send(call, timeout: 10, completion: completion)
    }

    // MARK: batond coming and going

    private func serviceAppeared(_ owner: String) {
        serviceOwner = owner
        registeredOwner = nil
        published = nil
        reportedActive = nil
        Task { @MainActor in
            switch await DaemonClient(connection: connection, destination: owner).register(
                appID: Self.applicationID, teamID: Self.teamIdentifier, activityTypes: Self.activityTypes,
                isStillWanted: { self.serviceOwner == owner }) {
            case .registered:
                break
            case .notTheService(let error):
                return HostLog.write("\(BatonService.busName) is owned by \(owner), which is not the Baton service: \(error)")
            case .refused(let error):
                return HostLog.write("the Baton service refused the registration: \(error)")
            case .superseded:
                return
            }
            registeredOwner = owner
            hasLoggedAbsence = false
            HostLog.write("registered with the Baton service as \(Self.applicationID)")
            synchronize()
        }
    }

    private func serviceVanished() {
        let wasRegistered = registeredOwner != nil
        serviceOwner = nil
        registeredOwner = nil
        published = nil
        reportedActive = nil
        if wasRegistered {
            HostLog.write("the Baton service stopped; pages are offered again when it returns")
        } else if !hasLoggedAbsence {
            hasLoggedAbsence = true
            HostLog.write("the Baton service is not running; pages are offered once it is")
        }
    }

    // MARK: Calls from batond

    private func handle(_ call: BusMethodCall) {
        guard let registeredOwner, call.sender == registeredOwner else {
            call.fail(with: ServiceError.accessDenied("only the Baton service may call this object"))
            return
        }
        switch call.method {
        case "Save":
            save(call.arguments.at(0)?.string ?? "", call)
        default:
            call.fail(with: UserActivityError.handoffFailed(
                "the browser host does not continue activities (\(call.method)): web pages are opened by the app "
                    + "claiming their domain, or the default browser"), sendingRecord: true)
        }
    }

    private func save(_ id: String, _ call: BusMethodCall) {
        guard let activity = [page, published].compactMap({ $0 }).first(where: { $0.id == id }) else {
            call.fail(with: ServiceError.unknownActivity(id), sendingRecord: true)
            return
        }
        do {
            call.reply([.bytes(try activity.payload.encodedBytes())])
        } catch {
            call.fail(with: error, sendingRecord: true)
        }
    }
}
