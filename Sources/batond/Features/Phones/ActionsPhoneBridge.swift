import BatonGLib
import Foundation
import Logging

/// A KDE Connect-family service that publishes its devices through
/// `org.freedesktop.DBus.ObjectManager` and takes commands as `org.gtk.Actions` on each device:
/// GSConnect (GNOME Shell's) and Valent. Written against the interfaces as their sources
/// publish them (neither is packaged in Debian 12); tested against a stand-in that exports
/// those interfaces.
///
/// Neither signals a link the phone shared over D-Bus (each opens it itself), so links come
/// from them only as the browser opens them.
@MainActor
final class ActionsPhoneBridge: PhoneBridge {
    /// What differs between the two services.
    struct Service: Sendable {
        let serviceName: String
        /// The prefix of Baton's ids for its phones (`gsconnect`).
        let idPrefix: String
        let busName: String
        /// Where its `ObjectManager` is.
        let rootPath: String
        let deviceInterface: String
        /// The `org.gtk.Actions` action that shares a URI (one string parameter).
        let shareAction: String
        /// A device's kind, reachability and pairing, from its properties.
        let read: @Sendable ([String: BusValue]) -> (kind: String?, reachable: Bool, paired: Bool)

        /// GSConnect: `org.gnome.Shell.Extensions.GSConnect`, devices with `Type` (`phone`,
        /// `tablet`, `desktop`…), `Connected` and `Paired`, sharing with `shareUri`.
        static let gsconnect = Service(
            serviceName: "GSConnect", idPrefix: "gsconnect", busName: "org.gnome.Shell.Extensions.GSConnect",
            rootPath: "/org/gnome/Shell/Extensions/GSConnect",
            deviceInterface: "org.gnome.Shell.Extensions.GSConnect.Device", shareAction: "shareUri",
            read: { properties in
                (KDEConnectBridge.kind(ofType: properties["Type"]?.string ?? ""),
                 properties["Connected"]?.bool ?? false, properties["Paired"]?.bool ?? false)
            })

        /// Valent: `ca.andyholmes.Valent`, devices with `State` (bits: 1 connected, 2 paired)
        /// and an `IconName` that says the kind (`phone-symbolic`, `tablet-symbolic`), sharing
        /// with `share.uri`.
        static let valent = Service(
            serviceName: "Valent", idPrefix: "valent", busName: "ca.andyholmes.Valent", rootPath: "/ca/andyholmes/Valent",
            deviceInterface: "ca.andyholmes.Valent.Device", shareAction: "share.uri",
            read: { properties in
                let state = properties["State"]?.integer ?? 0
                let icon = properties["IconName"]?.string ?? ""
                let kind = icon.hasPrefix("phone") || icon.hasPrefix("smartphone") ? "phone"
                    : icon.hasPrefix("tablet") ? "tablet" : nil
                return (kind, state & 1 != 0, state & 2 != 0)
            })
    }

    let service: Service
    var serviceName: String { service.serviceName }
    private(set) var phones: [Phone] = []
    weak var delegate: (any PhoneBridgeDelegate)?
    private let connection: BusConnection
    private let logger: Logger
    private var owner: String?
    /// Each phone's object path, by Baton's id.
    private var paths: [String: String] = [:]
    /// Reads the phones again, once at a time.
    private lazy var refresher = SerialRefresh { [weak self] in await self?.readAndPublish() }

    init(_ service: Service, connection: BusConnection, logger: Logger) {
        self.service = service
        self.connection = connection
        self.logger = logger
    }

    func start() {
        connection.watchName(service.busName, autoStart: false, appeared: { [weak self] owner in
            self?.owner = owner
            self?.refresh()
        }, vanished: { [weak self] in
            guard let self else { return }
            owner = nil
            paths = [:]
            if !phones.isEmpty {
                phones = []
                delegate?.phonesChanged()
            }
        })
        for interface in ["org.freedesktop.DBus.ObjectManager", "org.freedesktop.DBus.Properties"] {
            connection.subscribe(sender: service.busName, interface: interface, member: nil, path: nil) { [weak self] _, _ in
                self?.refresh()
            }
        }
    }

    private func refresh() {
        guard owner != nil else { return }
        refresher.request()
    }

    private func readAndPublish() async {
        guard let (read, readPaths) = await readPhones() else { return }
        paths = readPaths
        guard read != phones else { return }
        phones = read
        delegate?.phonesChanged()
    }

    /// The paired phones and tablets of `GetManagedObjects`, with their paths; `nil` when the
    /// service cannot be asked.
    private func readPhones() async -> ([Phone], [String: String])? {
        let objects: [BusValue: BusValue]
        do {
            objects = try await connection.call(service.busName, path: service.rootPath,
                                                interface: "org.freedesktop.DBus.ObjectManager", method: "GetManagedObjects",
                                                timeout: 5).first?.entries ?? [:]
        } catch {
            logger.notice("cannot read \(service.serviceName)'s devices: \(error)")
            return nil
        }
        var phones: [Phone] = []
        var paths: [String: String] = [:]
        for (key, value) in objects {
            guard let path = key.objectPath ?? key.string,
                  let properties = value.entries?[.string(service.deviceInterface)]?.dictionary else { continue }
            let (kind, reachable, paired) = service.read(properties)
            guard paired, let kind else { continue }
            let ownID = properties["Id"]?.string ?? String(path.split(separator: "/").last ?? "")
            let id = "\(service.idPrefix):\(ownID)"
            paths[id] = path
            phones.append(Phone(id: id, name: properties["Name"]?.string.flatMap(PhoneNames.clean) ?? ownID, kind: kind,
                                isReachable: reachable, via: service.serviceName))
        }
        return (phones.sorted { $0.id < $1.id }, paths)
    }

    func share(_ url: URL, with phone: Phone) async throws {
        guard owner != nil, let path = paths[phone.id] else { throw PhoneError("\(phone.name) is not paired with \(serviceName) here") }
        guard phone.isReachable else { throw PhoneError("\(phone.name) cannot be reached by \(serviceName) now") }
        do {
            _ = try await connection.call(service.busName, path: path, interface: "org.gtk.Actions", method: "Activate",
                                          arguments: [.string(service.shareAction),
                                                      .array(elementType: "v", [.variant(.string(url.absoluteString))]),
                                                      .dictionary([:])], timeout: 10)
        } catch {
            throw PhoneError("\(serviceName) could not send it to \(phone.name): \(error)")
        }
    }
}
