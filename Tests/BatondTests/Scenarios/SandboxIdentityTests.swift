import Foundation
import ServiceFixtures
import XCTest

/// Who a sandboxed app is, in a real sandbox: BatonTestApp run by bubblewrap (what Flatpak
/// runs apps with) with a `/.flatpak-info` inside, which batond reads through
/// `/proc/PID/root`. It may register only as the app its Flatpak info names, and only for a
/// team that is a reverse-DNS prefix of that id.
final class SandboxIdentityTests: ServiceTestCase {
    private static let bubblewrap = "/usr/bin/bwrap"

    /// Starts BatonTestApp in a bubblewrap sandbox whose `/.flatpak-info` names `flatpakName`,
    /// registering as `appID` for `team`.
    private func startSandboxed(_ name: String, flatpakName: String, appID: String, team: String) throws -> ChildProcess {
        try requireDisplay()
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.bubblewrap),
                          "bubblewrap is not installed (Debian package bubblewrap)")
        let info = session.root.appendingPathComponent("\(name).flatpak-info")
        try "[Application]\nname=\(flatpakName)\nruntime=runtime/org.gnome.Platform/x86_64/46\n\n[Instance]\ninstance-id=1\n"
            .write(to: info, atomically: true, encoding: .utf8)
        let program = ServiceSession.product("BatonTestApp")
        // A root of its own (so /.flatpak-info exists only inside), with the system, the
        // toolchain's libraries, the built program, the session's bus and the X display.
        var arguments = ["--die-with-parent", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
                         "--ro-bind", "/opt", "/opt", "--ro-bind-try", "/var/cache/fontconfig", "/var/cache/fontconfig",
                         "--proc", "/proc", "--dev", "/dev", "--bind", "/tmp", "/tmp"]
        for link in ["lib", "lib64", "bin", "sbin"] where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/\(link)")) != nil {
            arguments += ["--symlink", "usr/\(link)", "/\(link)"]
        }
        for folder in [program.deletingLastPathComponent().path, session.root.path] {
            arguments += ["--bind", folder, folder]
        }
        arguments += ["--ro-bind", info.path, "/.flatpak-info", "--", program.path,
                      "app", "--app-id", appID, "--team", team, "--text", name]
        return try session.start(URL(fileURLWithPath: Self.bubblewrap), arguments, name: name)
    }

    private func registered(_ appID: String) throws -> [String: Any]? {
        let apps = try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
        return apps.first { $0["app-id"] as? String == appID && $0["running"] as? Bool == true }
    }

    func testASandboxedAppRegistersAsItselfForATeamItsIDStartsWith() throws {
        let app = try startSandboxed("sandboxed", flatpakName: "org.baton.Sandboxed", appID: "org.baton.Sandboxed",
                                     team: "org.baton")
        XCTAssertTrue(waitUntil(timeout: 15) { try self.registered("org.baton.Sandboxed") != nil }, app.log)
        XCTAssertEqual(try registered("org.baton.Sandboxed")?["verified"] as? Bool, true,
                       "its Flatpak info says who it is")
        XCTAssertTrue(batond.log.contains("verified by Flatpak org.baton.Sandboxed"), batond.log)
    }

    func testASandboxedAppCannotRegisterAsAnotherApp() throws {
        let app = try startSandboxed("impostor", flatpakName: "org.baton.Sandboxed", appID: "org.baton.TestApp",
                                     team: "org.baton")
        XCTAssertTrue(waitUntil(timeout: 15) {
            app.log.contains("the Flatpak org.baton.Sandboxed, which may register only as itself, not as org.baton.TestApp")
        }, app.log)
        XCTAssertNil(try registered("org.baton.TestApp"))
    }

    func testASandboxedAppCannotSpeakForAnotherTeam() throws {
        let app = try startSandboxed("other-team", flatpakName: "org.baton.Sandboxed", appID: "org.baton.Sandboxed",
                                     team: "org.example")
        XCTAssertTrue(waitUntil(timeout: 15) {
            app.log.contains("may register only a team its id starts with (such as org.baton), not org.example")
        }, app.log)
        XCTAssertNil(try registered("org.baton.Sandboxed"))
        XCTAssertTrue(batond.log.contains("refused the registration of org.baton.Sandboxed"), batond.log)
    }
}
