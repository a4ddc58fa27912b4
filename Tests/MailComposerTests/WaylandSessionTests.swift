import Foundation
import ServiceFixtures
import XCTest

/// The Wayland harness itself: sway runs unprivileged in a runtime folder of its own, the
/// apps reach it through theirs, the seat has a keyboard, and nothing is left once stopped.
final class WaylandSessionTests: XCTestCase {
    func testSwayRunsUnprivilegedWithItsOwnRuntimeFolderAndLeavesNothingBehind() throws {
        if let missing = WaylandSession.missingRequirement { throw XCTSkip(missing) }
        let session = try WaylandSession()
        defer { session.stop() }
        let fileManager = FileManager.default

        let runtime = try fileManager.attributesOfItem(atPath: session.compositorRuntimeDirectory.path)
        XCTAssertEqual(runtime[.posixPermissions] as? Int, 0o700)
        XCTAssertEqual(runtime[.ownerAccountName] as? String, session.compositorUser)
        let swayUID = try XCTUnwrap(Self.realUID(of: session.compositorPID), "sway's /proc status")
        XCTAssertEqual(swayUID, getpwnam(session.compositorUser)?.pointee.pw_uid)
        if getuid() == 0 {
            XCTAssertNotEqual(swayUID, 0, "sway does not run as root")
        }

        let clients = try fileManager.attributesOfItem(atPath: session.clientRuntimeDirectory.path)
        XCTAssertEqual(clients[.posixPermissions] as? Int, 0o700)
        XCTAssertEqual((clients[.ownerAccountID] as? NSNumber)?.uint32Value, getuid())
        let link = session.clientRuntimeDirectory.appendingPathComponent(session.socketName).path
        XCTAssertEqual(try fileManager.destinationOfSymbolicLink(atPath: link),
                       session.compositorRuntimeDirectory.appendingPathComponent(session.socketName).path)
        XCTAssertEqual(session.environment["WAYLAND_DISPLAY"], session.socketName)
        XCTAssertEqual(session.environment["XDG_RUNTIME_DIR"], session.clientRuntimeDirectory.path)
        XCTAssertEqual(session.environment["GDK_BACKEND"], "wayland")

        XCTAssertTrue(try session.hasKeyboard(), "the seat has wtype's virtual keyboard")
        XCTAssertEqual(try session.allWindows().count, 0)

        let processes = [session.compositorPID, try XCTUnwrap(session.keyboardPID)]
        session.stop()
        XCTAssertFalse(session.isRunning)
        for pid in processes {
            XCTAssertEqual(kill(pid, 0), -1, "process \(pid) is gone")
        }
        XCTAssertFalse(fileManager.fileExists(atPath: session.root.path), "the session's folder is removed")
    }

    /// The real user id of process `pid`, from `/proc/<pid>/status`.
    private static func realUID(of pid: Int32) -> uid_t? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { return nil }
        return line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { uid_t($0) }
    }
}
