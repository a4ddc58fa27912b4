import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// A private dbus-daemon and two connections to it: one that serves, one that calls.
@MainActor
struct PrivateBus {
    let session: ServiceSession
    let server: BusConnection
    let client: BusConnection

    /// Starts the bus and connects; skips the test when dbus-daemon is missing. Call
    /// ``tearDown()`` when done.
    init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw XCTSkip("dbus-daemon is missing")
        }
        session = try ServiceSession()
        do {
            try session.startBus()
            server = try BusConnection.bus(at: session.busAddress)
            client = try BusConnection.bus(at: session.busAddress)
        } catch {
            session.tearDown()
            throw error
        }
    }

    /// Stops the bus.
    func tearDown() {
        session.tearDown()
    }
}
