import Baton
import BatonGLib

/// One call of batond's `org.baton.Daemon1`: its method, its arguments, and how its reply
/// reads. Each method of the interface that a client calls is one factory here, so its name,
/// argument types and reply are written once for HandoffClient, the browser host, the Baton
/// app and `baton`; ``DaemonClient`` makes the call.
///
/// A reply reads as leniently as the clients always read it: a record or list that is not
/// there reads as empty, a flag as `false`, a string as `""`.
package struct DaemonCall<Reply> {
    /// The method's name in `org.baton.Daemon1`.
    package let method: String
    /// The call's arguments, in the method's signature.
    package let arguments: [BusValue]
    /// Reads the reply's out arguments.
    let decode: ([BusValue]) -> Reply
}

// MARK: Apps

extension DaemonCall where Reply == Void {
    /// `Register(s app_id, s team_id, as activity_types)`.
    package static func register(appID: String, teamID: String, activityTypes: [String]) -> Self {
        DaemonCall(method: "Register", arguments: [.string(appID), .string(teamID), .strings(activityTypes)]) { _ in }
    }

    /// `PublishCurrent(s activity_id, a{sv} summary)`.
    package static func publishCurrent(id: String, summary: ActivitySummary) -> Self {
        DaemonCall(method: "PublishCurrent", arguments: [.string(id), .dictionary(summary.record)]) { _ in }
    }

    /// `ResignCurrent()`.
    package static var resignCurrent: Self { DaemonCall(method: "ResignCurrent", arguments: []) { _ in } }

    /// `SetActive(b active)`.
    package static func setActive(_ active: Bool) -> Self {
        DaemonCall(method: "SetActive", arguments: [.bool(active)]) { _ in }
    }
}

extension DaemonCall where Reply == Int32? {
    /// `OpenContinuationStream(s token) → h stream`: the stream's descriptor, taken from the
    /// reply (the caller owns it), or `nil` when the reply holds none.
    package static func openContinuationStream(token: String) -> Self {
        DaemonCall(method: "OpenContinuationStream", arguments: [.string(token)]) { reply in
            guard case .fileDescriptor(let handle)? = reply.first else { return nil }
            return handle.take()
        }
    }
}

// MARK: Status, activities and offers

extension DaemonCall where Reply == [String: BusValue] {
    /// `GetStatus() → a{sv}`.
    package static var getStatus: Self { .record("GetStatus") }
    /// `GetSettings() → a{sv}`.
    package static var getSettings: Self { .record("GetSettings") }

    private static func record(_ method: String) -> Self {
        DaemonCall(method: method, arguments: []) { $0.at(0)?.dictionary ?? [:] }
    }
}

extension DaemonCall where Reply == [[String: BusValue]] {
    /// `ListActivities() → aa{sv}`.
    package static var listActivities: Self { .records("ListActivities") }
    /// `ListApps() → aa{sv}`.
    package static var listApps: Self { .records("ListApps") }
    /// `ListDevices() → aa{sv}`.
    package static var listDevices: Self { .records("ListDevices") }
    /// `Diagnose() → aa{sv}`.
    package static var diagnose: Self { .records("Diagnose") }
    /// `ListDomains() → aa{sv}`.
    package static var listDomains: Self { .records("ListDomains") }
    /// `VerifyDomains() → aa{sv}`.
    package static var verifyDomains: Self { .records("VerifyDomains") }

    private static func records(_ method: String) -> Self {
        DaemonCall(method: method, arguments: []) { $0.at(0)?.dictionaries ?? [] }
    }
}

extension DaemonCall where Reply == [UInt8]? {
    /// `Inspect() → ay`: the current activity's payload, `nil` when the reply holds none.
    package static var inspect: Self { DaemonCall(method: "Inspect", arguments: []) { $0.at(0)?.bytes } }

    /// `Fetch(s id) → ay`: a listed activity's payload, `nil` when the reply holds none.
    package static func fetch(id: String) -> Self {
        DaemonCall(method: "Fetch", arguments: [.string(id)]) { $0.at(0)?.bytes }
    }
}

extension DaemonCall where Reply == Void {
    /// `ContinueWithOptions(s id, a{sv} options)`.
    package static func continueActivity(id: String, options: [String: BusValue]) -> Self {
        DaemonCall(method: "ContinueWithOptions", arguments: [.string(id), .dictionary(options)]) { _ in }
    }

    /// `ContinuePayload(ay payload, a{sv} options)`.
    package static func continuePayload(_ payload: [UInt8], options: [String: BusValue]) -> Self {
        DaemonCall(method: "ContinuePayload", arguments: [.bytes(payload), .dictionary(options)]) { _ in }
    }

    /// `RemoveOffer(s id)`.
    package static func removeOffer(id: String) -> Self {
        DaemonCall(method: "RemoveOffer", arguments: [.string(id)]) { _ in }
    }

    /// `SendToDevice(s activity_id, s device)`: `""` sends the current activity.
    package static func sendToDevice(activityID: String, device: String) -> Self {
        DaemonCall(method: "SendToDevice", arguments: [.string(activityID), .string(device)]) { _ in }
    }
}

extension DaemonCall where Reply == String {
    /// `AddOffer(ay payload, a{sv} options) → s id`.
    package static func addOffer(_ payload: [UInt8], options: [String: BusValue]) -> Self {
        DaemonCall(method: "AddOffer", arguments: [.bytes(payload), .dictionary(options)]) { $0.at(0)?.string ?? "" }
    }
}

// MARK: Devices and settings

extension DaemonCall where Reply == (deviceID: String, code: String) {
    /// `Pair(s device) → (s device_id, s code)`.
    package static func pair(_ device: String) -> Self {
        DaemonCall(method: "Pair", arguments: [.string(device)]) { ($0.at(0)?.string ?? "", $0.at(1)?.string ?? "") }
    }
}

extension DaemonCall where Reply == Bool {
    /// `CancelContinue(s id) → b cancelled`: the caller's own Continue of `id`.
    package static func cancelContinue(id: String) -> Self {
        DaemonCall(method: "CancelContinue", arguments: [.string(id)]) { $0.at(0)?.bool ?? false }
    }

    /// `ConfirmPair(s device, s code) → b paired`.
    package static func confirmPair(_ device: String, code: String) -> Self {
        DaemonCall(method: "ConfirmPair", arguments: [.string(device), .string(code)]) { $0.at(0)?.bool ?? false }
    }
}

extension DaemonCall where Reply == Void {
    /// `CancelPair(s device)`.
    package static func cancelPair(_ device: String) -> Self {
        DaemonCall(method: "CancelPair", arguments: [.string(device)]) { _ in }
    }

    /// `Unpair(s device)`.
    package static func unpair(_ device: String) -> Self {
        DaemonCall(method: "Unpair", arguments: [.string(device)]) { _ in }
    }

    /// `SetDeviceName(s name)`.
    package static func setDeviceName(_ name: String) -> Self {
        DaemonCall(method: "SetDeviceName", arguments: [.string(name)]) { _ in }
    }

    /// `SetHandoff(b on)`.
    package static func setHandoff(_ on: Bool) -> Self {
        DaemonCall(method: "SetHandoff", arguments: [.bool(on)]) { _ in }
    }

    /// `SetRecentDocuments(b on)`: whether the document open in an app that does not adopt
    /// Baton, from the desktop's recent list, is offered.
    package static func setRecentDocuments(_ on: Bool) -> Self {
        DaemonCall(method: "SetRecentDocuments", arguments: [.bool(on)]) { _ in }
    }

    /// `SetClipboard(b on)`: whether copies are shared with paired devices.
    package static func setClipboard(_ on: Bool) -> Self {
        DaemonCall(method: "SetClipboard", arguments: [.bool(on)]) { _ in }
    }

    /// `SetDeviceClipboard(s device, b on)`: whether copies are shared with one paired device.
    package static func setDeviceClipboard(_ device: String, _ on: Bool) -> Self {
        DaemonCall(method: "SetDeviceClipboard", arguments: [.string(device), .bool(on)]) { _ in }
    }

    /// `SetNotifications(s mode)`: `on` or `quiet` (batond refuses anything else).
    package static func setNotifications(_ mode: String) -> Self {
        DaemonCall(method: "SetNotifications", arguments: [.string(mode)]) { _ in }
    }

    /// `SetDeviceBlocked(s device, b blocked)`.
    package static func setDeviceBlocked(_ device: String, _ blocked: Bool) -> Self {
        DaemonCall(method: "SetDeviceBlocked", arguments: [.string(device), .bool(blocked)]) { _ in }
    }

    /// `SetAppBlocked(s app_id, b blocked)`.
    package static func setAppBlocked(_ appID: String, _ blocked: Bool) -> Self {
        DaemonCall(method: "SetAppBlocked", arguments: [.string(appID), .bool(blocked)]) { _ in }
    }
}
