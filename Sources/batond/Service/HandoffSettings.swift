import BatonGLib
import BatonPeer
import Foundation

/// What the person decides about Handoff on this device.
struct HandoffSettings: Equatable, Sendable {
    /// How offers from other devices are announced.
    enum Notifications: String, Codable, Sendable, CaseIterable {
        /// A notification for each device's offer.
        case on
        /// No notifications: offers are listed only.
        case quiet
    }

    /// Whether this device takes part: off, nothing is offered, and other devices' offers
    /// are neither listed nor shown.
    var handoff = true
    var notifications = Notifications.on
    /// Paired devices (by id) whose offers are neither listed nor shown, and which this
    /// device offers nothing.
    var blockedDevices: Set<String> = []
    /// Apps (by app id, or by program name for apps of the recent list) whose activities
    /// are never offered.
    var blockedApps: Set<String> = []
    /// Whether the document open in an app that does not adopt Baton, from the desktop's
    /// recent list, is offered (``RecentDocuments``).
    var recentDocuments = true
    /// Whether copies here are announced to paired devices, and theirs pasted here
    /// (``ClipboardFeature``).
    var clipboard = true
    /// Paired devices (by id) that take part in Handoff but not in the clipboard's sharing.
    var clipboardBlockedDevices: Set<String> = []
    /// The name the person gave this device (`SetDeviceName`); `nil` keeps the one from
    /// `batond.conf` or the host name.
    var name: String?

    /// The record `GetSettings` and `SettingsChanged` carry, but for the device name, which
    /// the daemon adds (it may come from elsewhere).
    var record: [String: BusValue] {
        ["handoff": .bool(handoff), "notifications": .string(notifications.rawValue),
         "blocked-devices": .strings(blockedDevices.sorted()), "blocked-apps": .strings(blockedApps.sorted()),
         "recent-documents": .bool(recentDocuments), "clipboard": .bool(clipboard),
         "clipboard-blocked-devices": .strings(clipboardBlockedDevices.sorted())]
    }
}

extension HandoffSettings: Codable {
    private enum CodingKeys: String, CodingKey {
        case handoff, notifications, blockedDevices = "blocked-devices", blockedApps = "blocked-apps", name
        case recentDocuments = "recent-documents"
        case clipboard, clipboardBlockedDevices = "clipboard-blocked-devices"
    }

    /// Missing keys keep their defaults, so a file from an earlier release still reads.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        handoff = try container.decodeIfPresent(Bool.self, forKey: .handoff) ?? true
        notifications = try container.decodeIfPresent(Notifications.self, forKey: .notifications) ?? .on
        blockedDevices = try container.decodeIfPresent(Set<String>.self, forKey: .blockedDevices) ?? []
        blockedApps = try container.decodeIfPresent(Set<String>.self, forKey: .blockedApps) ?? []
        recentDocuments = try container.decodeIfPresent(Bool.self, forKey: .recentDocuments) ?? true
        clipboard = try container.decodeIfPresent(Bool.self, forKey: .clipboard) ?? true
        clipboardBlockedDevices = try container.decodeIfPresent(Set<String>.self, forKey: .clipboardBlockedDevices) ?? []
        name = try container.decodeIfPresent(String.self, forKey: .name)
        if let name {
            do {
                try NetworkSettings.checkName(name, what: "name")
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: "\(error)")
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(handoff, forKey: .handoff)
        try container.encode(notifications, forKey: .notifications)
        try container.encode(blockedDevices.sorted(), forKey: .blockedDevices)
        try container.encode(blockedApps.sorted(), forKey: .blockedApps)
        try container.encode(recentDocuments, forKey: .recentDocuments)
        try container.encode(clipboard, forKey: .clipboard)
        try container.encode(clipboardBlockedDevices.sorted(), forKey: .clipboardBlockedDevices)
        try container.encodeIfPresent(name, forKey: .name)
    }
}

/// The settings, kept in `settings.json` (0600) in batond's config folder, written whole on
/// each change through a temporary file.
@MainActor
final class SettingsStore {
    static let fileName = "settings.json"
    private(set) var settings: HandoffSettings
    private let file: URL

    /// Reads the settings through ``PrivateFiles/read(_:)``; a missing file gives the
    /// defaults.
    ///
    /// - Throws: ``ConfigError`` when the file exists but cannot be used: it is left as it is.
    init(directory: URL) throws {
        file = directory.appendingPathComponent(Self.fileName)
        settings = try PrivateJSONFile.read(HandoffSettings.self, from: file,
                                            expected: "Baton settings (handoff: true or false, notifications: \"on\" or \"quiet\", blocked-devices and blocked-apps: lists of ids, recent-documents and clipboard: true or false, clipboard-blocked-devices: a list of ids, name: a device name)")
            ?? HandoffSettings()
    }

    /// Applies `change` and saves; returns whether anything changed. When the file cannot be
    /// saved, nothing changes.
    @discardableResult
    func update(_ change: (inout HandoffSettings) -> Void) throws -> Bool {
        var next = settings
        change(&next)
        guard next != settings else { return false }
        do {
            try PrivateJSONFile.write(next, to: file)
        } catch {
            throw ConfigError(file, "cannot be saved: \(error)")
        }
        settings = next
        return true
    }
}
