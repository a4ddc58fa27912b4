import Baton
import BatonBus

/// The names other devices give themselves, and the names they are shown by here: a view of
/// this device's name, the paired devices' pinned names and the names in the devices' hellos,
/// which ``PeerNetwork/names`` makes when asked.
///
/// A name is taken cleaned (``DeviceNameSkeleton/cleaned(_:)``: no invisible characters, no
/// white space at either end). Names are compared by their skeletons
/// (``DeviceNameSkeleton``), so `Εvil` (a Greek Epsilon), `Evil\u{200B}` and `evil ` all
/// pose as `Evil`. A device whose name poses as this device's or a paired device's is never
/// shown by that name alone: it is shown with its short id, `Evil (1a2b3c4d)`.
///
/// - A paired device's name is decided when it is taken (its hello, a rename, the pairing)
///   and pinned: the paired device that held a name first keeps it, and one that takes it
///   later is pinned as `Name (its short id)`, until it takes another name.
/// - An unpaired device's name is decided each time it is shown; its pairing request is
///   flagged besides (``impersonated(by:)``).
/// - Any device's name that poses as this device's, whenever this device was named, is shown
///   with its short id: no other device is ever shown by this device's name, in lists,
///   offers, notifications, "Continued from ‹device›" folders or a document copy's origin.
@MainActor
struct DeviceNames {
    /// This device's name.
    let thisDevice: String
    /// The paired devices, by id, with the names they are pinned by.
    let paired: [String: PairedDevice]
    /// The name a device gave itself in its last hello or rename (cleaned), if it is known.
    let announced: @MainActor (String) -> String?

    /// The first 8 digits of a device id, shown with its name: names are chosen by the
    /// devices themselves, ids are not.
    static func shortID(_ deviceID: String) -> String { String(deviceID.prefix(8)) }

    /// The name `deviceID` is shown and known by here: the name it gave itself, with its
    /// short id when that name poses as this device or a paired device; its short id alone
    /// when it gave none.
    func deviceName(_ deviceID: String) -> String {
        let shortID = Self.shortID(deviceID)
        let name: String
        let posing: Bool
        if let pinned = paired[deviceID] {
            name = DeviceNameSkeleton.cleaned(pinned.name)
            // Pinned names that pose as each other come from before names were compared:
            // the device paired first keeps its name.
            let earlier = paired.values.filter {
                ($0.pairedAt, $0.id) < (pinned.pairedAt, pinned.id)
            }
            posing = posedDevice(by: name, of: deviceID, among: earlier) != nil
        } else {
            name = announced(deviceID) ?? ""
            posing = posedDevice(by: name, of: deviceID, among: Array(paired.values)) != nil
        }
        guard !name.isEmpty else { return shortID }
        return posing ? Self.flagged(name, deviceID) : name
    }

    /// The name and short id of a device, as people are shown it: `“Laptop” (1a2b3c4d)`.
    func displayName(_ deviceID: String) -> String {
        "“\(deviceName(deviceID))” (\(Self.shortID(deviceID)))"
    }

    /// The name `deviceID` gave itself in its last hello or rename (cleaned), or, for a
    /// paired device not linked since batond started, the name it is pinned by.
    func claimedName(_ deviceID: String) -> String? {
        announced(deviceID) ?? paired[deviceID]?.name
    }

    /// The device whose name `deviceID`'s name poses as: this device, or a paired device
    /// other than `deviceID`. A pairing request under such a name is flagged.
    func impersonated(by deviceID: String) -> String? {
        guard let claimed = claimedName(deviceID) else { return nil }
        switch posedDevice(by: claimed, of: deviceID, among: Array(paired.values)) {
        case .thisDevice?: return "this device"
        case .paired(let other)?: return "your paired “\(deviceName(other))” (\(Self.shortID(other)))"
        case nil: return nil
        }
    }

    /// The name to pin for `deviceID`, which calls itself `claimed`: the name cleaned, with
    /// the device's short id when it poses as this device or another paired device; and what
    /// it poses as, to log.
    func takenName(_ claimed: String, by deviceID: String) -> (name: String, posing: String?) {
        let name = DeviceNameSkeleton.cleaned(claimed)
        // Against the devices paired before it: of two pinned under one name (from before
        // names were compared), the one paired first keeps it, whichever says hello first.
        let mine = paired[deviceID]
        let others = paired.values.filter { other in
            other.id != deviceID && mine.map { (other.pairedAt, other.id) < ($0.pairedAt, $0.id) } ?? true
        }
        switch posedDevice(by: name, of: deviceID, among: others) {
        case .thisDevice?: return (Self.flagged(name, deviceID), "this device's name")
        case .paired(let other)?: return (Self.flagged(name, deviceID), "the name of \(displayName(other))")
        case nil: return (name, nil)
        }
    }

    /// What a name may pose as.
    private enum PosedDevice: Equatable {
        case thisDevice
        case paired(String)
    }

    /// What `name`, given by `deviceID`, poses as: this device, or the first (by id) of
    /// `candidates` other than `deviceID` whose pinned name has its skeleton. An empty name
    /// poses as none.
    private func posedDevice(by name: String, of deviceID: String, among candidates: [PairedDevice]) -> PosedDevice? {
        let skeleton = DeviceNameSkeleton(name)
        guard !skeleton.text.isEmpty else { return nil }
        if skeleton == DeviceNameSkeleton(thisDevice) { return .thisDevice }
        return candidates.filter { $0.id != deviceID }.sorted { $0.id < $1.id }
            .first { DeviceNameSkeleton($0.name) == skeleton }.map { .paired($0.id) }
    }

    /// `name` with the short id of `deviceID`: `Evil (1a2b3c4d)`, the name cut between
    /// characters so that the whole stays within a device name's 255 bytes.
    private static func flagged(_ name: String, _ deviceID: String) -> String {
        let suffix = " (\(shortID(deviceID)))"
        return ActivityLimits.prefix(of: name, bytes: 255 - suffix.utf8.count) + suffix
    }

    /// The id of the device named or numbered `text`, among the devices `known`.
    ///
    /// - Throws: ``ServiceError/unknownDevice(_:)`` when none or several match.
    func resolve(_ text: String, among known: [String]) throws -> String {
        if known.contains(text) { return text }
        let named = known.filter { deviceName($0) == text || deviceName($0).lowercased() == text.lowercased() }
        if named.count == 1, let id = named.first { return id }
        if named.count > 1 {
            throw ServiceError.unknownDevice("several devices are named \"\(Excerpt.of(text))\": use an id (\(named.joined(separator: ", ")))")
        }
        let prefixed = known.filter { $0.hasPrefix(text.lowercased()) && text.count >= 4 }
        if prefixed.count == 1, let id = prefixed.first { return id }
        throw ServiceError.unknownDevice("no device named or numbered \"\(Excerpt.of(text))\": see baton devices")
    }
}
