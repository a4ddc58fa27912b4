import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// The part of `org.freedesktop.Notifications` batond calls.
private let notificationsXML = """
    <node>
      <interface name="org.freedesktop.Notifications">
        <method name="Notify">
          <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
          <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
          <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
        </method>
        <method name="CloseNotification"><arg type="u" direction="in"/></method>
      </interface>
    </node>
    """

/// The `Notify` calls a notification server received, in order.
@MainActor
private final class ReceivedNotifications {
    var calls: [[BusValue]] = []
}

/// batond's notifications say whose they are: the `desktop-entry` hint names batond's own
/// desktop entry (`org.baton.Daemon.desktop`, installed by scripts/install-service.sh) and
/// the icon is batond's own, so the shell groups them under Baton and the user can set how
/// Baton may notify. The test plays the desktop's notification server on the session bus.
final class NotificationIdentityTests: ServiceTestCase {
    @MainActor
    func testAnOfferNotificationCarriesBatondsDesktopEntryAndIcon() async throws {
        let connection = try BusConnection.bus(at: session.busAddress)
        let received = ReceivedNotifications()
        try connection.export(path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
                              introspectionXML: notificationsXML) { call in
            guard call.method == "Notify" else { return call.reply() }
            received.calls.append(call.arguments)
            call.reply([.uint32(UInt32(received.calls.count))])
        }
        var owned = false
        connection.ownName("org.freedesktop.Notifications", acquired: { owned = true }, lost: {})
        let ownedInTime = await pumpMainLoop { owned }
        XCTAssertTrue(ownedInTime, "the test's notification server never owned its name")

        let file = try activityFile(["type": "org.baton.test.note", "title": "Note: offered", "teamID": "org.baton.test",
                                     "userInfo": ["text": "offered"]])
        let added = try session.baton(["offer", "--file", file, "--device", "laptop"])
        XCTAssertEqual(added.status, 0, added.errorOutput)
        let notified = await pumpMainLoop { !received.calls.isEmpty }
        XCTAssertTrue(notified, "batond showed no notification for the offer")
        let arguments = try XCTUnwrap(received.calls.first)
        XCTAssertEqual(arguments.count, 8, "Notify(susssasa{sv}i)")
        XCTAssertEqual(arguments.at(0)?.string, "Baton", "app_name")
        XCTAssertEqual(arguments.at(2)?.string, "org.baton.Daemon", "app_icon: batond's own icon, not a stock one")
        XCTAssertEqual(arguments.at(3)?.string, "Continue “Note: offered”")
        let hints = try XCTUnwrap(arguments.at(6)?.dictionary, "hints: \(String(describing: arguments.at(6)))")
        XCTAssertEqual(hints["desktop-entry"]?.string, "org.baton.Daemon", "hints: \(hints)")
        XCTAssertEqual(hints["category"]?.string, "network")
        try assertServiceAlive()
        withExtendedLifetime(connection) {}
    }
}
