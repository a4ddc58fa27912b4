import Foundation
import ServiceFixtures
import XCTest

/// Two paired devices with a notification server on one of them, which has the test app
/// installed: the setup of the tests of what a person is shown on another device (offers,
/// notifications, settings, names). On a failure, both batonds' logs and the notifications
/// are printed.
class NotifiedDevicePairTestCase: XCTestCase {
    var devices: DevicePair!
    var notifications: NotificationLog!

    /// The device whose notification server logs what it is asked to show.
    class var notifiedDevice: KeyPath<DevicePair, ServiceSession> { \.b }
    /// Whether the devices are named in their `batond.conf`, so the person may rename them,
    /// rather than with `--name`.
    class var renamable: Bool { false }
    /// The actions the notification server clicks, the first each notification has.
    class var invokedActions: [String] { [] }

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        devices = try DevicePair(fixedNames: !Self.renamable)
        notifications = try NotificationLog(on: devices[keyPath: Self.notifiedDevice], invoking: Self.invokedActions)
        // The notified device has the test app, which continues the other's notes: a device's
        // offer that no app here opens is listed but never notified.
        try devices[keyPath: Self.notifiedDevice].installTestAppEntry(id: "org.baton.TestApp")
        _ = try devices.pair()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false {
            devices?.printLogs()
            print("--- notifications\n\(notifications?.text ?? "")")
        }
        devices?.tearDown()
    }
}
