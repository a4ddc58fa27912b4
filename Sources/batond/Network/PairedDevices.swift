import BatonPeer
import Foundation

/// A device this one paired with: its pinned certificate, and where it was last seen.
struct PairedDevice: Codable, Sendable {
    let id: String
    var name: String
    /// The peer's certificate, DER, base64: a link from this device id with any other
    /// certificate is refused.
    let certificate: Data
    /// `HOST:PORT` it listened on when last linked, to dial it again.
    var address: String?
    let pairedAt: Date
}

/// The paired devices, kept in `paired-devices.json` (0600) in batond's config folder.
///
/// Written whole on each change, through a temporary file, so a crash leaves the old list
/// or the new one.
@MainActor
final class PairedDevices {
    private(set) var devices: [String: PairedDevice] = [:]
    /// Runs after a device is pinned or forgotten.
    var onChange: () -> Void = {}
    private let file: URL

    static let fileName = "paired-devices.json"

    /// Reads the list through ``PrivateFiles/read(_:)`` (never through a symbolic link, made
    /// 0600); a missing file is an empty list.
    ///
    /// - Throws: ``ConfigError`` when the file exists but cannot be used: it is left as it is.
    init(directory: URL) throws {
        file = directory.appendingPathComponent(Self.fileName)
        let list = try PrivateJSONFile.read([PairedDevice].self, from: file, expected: "a list of paired devices") ?? []
        devices = Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Pins `device`; when the file cannot be saved, nothing changes.
    func pin(_ device: PairedDevice) throws {
        try set(device.id, to: device)
    }

    /// Forgets `id`; when the file cannot be saved, nothing changes.
    func forget(_ id: String) throws {
        guard devices[id] != nil else { return }
        try set(id, to: nil)
    }

    /// Sets or removes the entry of `id` and saves the list, putting the entry back as it
    /// was when the save fails.
    private func set(_ id: String, to device: PairedDevice?) throws {
        let previous = devices[id]
        devices[id] = device
        do {
            try save()
        } catch {
            devices[id] = previous
            throw error
        }
        onChange()
    }

    /// Records a paired device's name and address as it announced them; saved only on change.
    func update(_ id: String, name: String, address: String?) throws {
        guard var device = devices[id], device.name != name || (address != nil && device.address != address) else {
            return
        }
        device.name = name
        if let address { device.address = address }
        devices[id] = device
        try save()
    }

    private func save() throws {
        try PrivateJSONFile.write(devices.values.sorted { $0.id < $1.id }, to: file)
    }
}
