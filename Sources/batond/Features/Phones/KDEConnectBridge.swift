import BatonGLib
import Foundation
import Logging

/// kdeconnectd (KDE Connect 22.12 and later) on the session bus, `org.kde.kdeconnect`: its
/// paired phones and tablets (`/modules/kdeconnect/devices/ID`, `org.kde.kdeconnect.device`),
/// links sent with the share plugin's `shareUrl` and received through its `shareReceived`
/// signal. It is never started by batond: a desktop without KDE Connect has no phones here.
///
/// kdeconnectd opens a received link itself (in the default browser) before it signals it;
/// batond lists it as an offer besides, which continues in the app claiming its domain.
@MainActor
final class KDEConnectBridge: PhoneBridge {
    static let busName = "org.kde.kdeconnect"
    static let daemonPath = "/modules/kdeconnect"
    static let devicesPath = "/modules/kdeconnect/devices/"
    static let deviceInterface = "org.kde.kdeconnect.device"
    static let shareInterface = "org.kde.kdeconnect.device.share"

    let serviceName = "KDE Connect"
    private(set) var phones: [Phone] = []
    weak var delegate: (any PhoneBridgeDelegate)?
    private let connection: BusConnection
    private let logger: Logger
    private var owner: String?
    /// Reads the phones again, once at a time.
    private lazy var refresher = SerialRefresh { [weak self] in await self?.readAndPublish() }

    init(connection: BusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func start() {
        connection.watchName(Self.busName, autoStart: false, appeared: { [weak self] owner in
            self?.owner = owner
            self?.refresh()
        }, vanished: { [weak self] in
            guard let self else { return }
            owner = nil
            if !phones.isEmpty {
                phones = []
                delegate?.phonesChanged()
            }
        })
        // Devices come, go, pair, rename and change reach: each is a signal (kdeconnectd
        // emits no PropertiesChanged). Any of them has the list read again.
        for interface in ["org.kde.kdeconnect.daemon", Self.deviceInterface] {
            connection.subscribe(sender: Self.busName, interface: interface, member: nil, path: nil) { [weak self] _, _ in
                self?.refresh()
            }
        }
        connection.subscribeWithPath(sender: Self.busName, interface: Self.shareInterface, member: "shareReceived",
                                     path: nil) { [weak self] _, path, arguments in
            self?.received(arguments.first?.string, from: path)
        }
    }

    /// Reads the paired devices again, once at a time.
    private func refresh() {
        guard owner != nil else { return }
        refresher.request()
    }

    private func readAndPublish() async {
        let read = await readPhones()
        guard read != phones else { return }
        phones = read
        delegate?.phonesChanged()
    }

    private func readPhones() async -> [Phone] {
        do {
            let ids = try await connection.call(Self.busName, path: Self.daemonPath, interface: "org.kde.kdeconnect.daemon",
                                                method: "devices", arguments: [.bool(false), .bool(true)], timeout: 5)
                .first?.strings ?? []
            var phones: [Phone] = []
            for id in ids.sorted() where Self.isDeviceID(id) {
                let properties = try await connection.call(
                    Self.busName, path: Self.devicesPath + id, interface: "org.freedesktop.DBus.Properties",
                    method: "GetAll", arguments: [.string(Self.deviceInterface)], timeout: 5).first?.dictionary ?? [:]
                let type = properties["type"]?.string ?? ""
                guard let kind = Self.kind(ofType: type) else { continue }
                let name = properties["name"]?.string.flatMap(PhoneNames.clean) ?? id
                phones.append(Phone(id: "kdeconnect:\(id)", name: name, kind: kind,
                                    isReachable: properties["isReachable"]?.bool ?? false, via: serviceName))
            }
            return phones
        } catch {
            logger.notice("cannot read KDE Connect's devices: \(error)")
            return phones
        }
    }

    func share(_ url: URL, with phone: Phone) async throws {
        guard let id = Self.ownID(of: phone), owner != nil else { throw PhoneError("\(phone.name) is not paired with KDE Connect here") }
        guard phone.isReachable else { throw PhoneError("\(phone.name) cannot be reached by KDE Connect now") }
        do {
            _ = try await connection.call(Self.busName, path: Self.devicesPath + id + "/share", interface: Self.shareInterface,
                                          method: "shareUrl", arguments: [.string(url.absoluteString)], timeout: 10)
        } catch {
            throw PhoneError("KDE Connect could not send it to \(phone.name): \(error)")
        }
    }

    private func received(_ text: String?, from path: String) {
        guard path.hasPrefix(Self.devicesPath), path.hasSuffix("/share") else { return }
        let id = String(path.dropFirst(Self.devicesPath.count).dropLast("/share".count))
        guard let phone = phones.first(where: { $0.id == "kdeconnect:\(id)" }) else {
            logger.info("KDE Connect received something from a device that is not a paired phone; not listed")
            return
        }
        // Text and files arrive as paths of files kdeconnectd wrote: only web links are offers.
        guard let text, let url = PhoneNames.webLink(text) else {
            logger.info("\(phone.name) shared something that is not a web link; not listed")
            return
        }
        delegate?.phone(phone, shared: url)
    }

    /// KDE Connect's id of one of its phones.
    private static func ownID(of phone: Phone) -> String? {
        phone.id.hasPrefix("kdeconnect:") ? String(phone.id.dropFirst("kdeconnect:".count)) : nil
    }

    /// The kind of a device of KDE Connect's `type`: phones and tablets; `nil` for the rest
    /// (desktops, laptops, televisions), which are not phones to send a page to.
    nonisolated static func kind(ofType type: String) -> String? {
        switch type {
        case "smartphone", "phone": return "phone"
        case "tablet": return "tablet"
        default: return nil
        }
    }

    /// An id as kdeconnectd writes them (letters, digits and `_`), usable in an object path.
    static func isDeviceID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}
